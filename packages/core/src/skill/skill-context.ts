import type { MemoryStore } from '../memory/memory-store';

export type SkillLogLevel = 'debug' | 'info' | 'warn' | 'error';
export type SkillLogger = Record<SkillLogLevel, (message: string, fields?: Record<string, unknown>) => void>;

/**
 * The `ctx` a code skill's `execute(input, ctx)` receives: spec 003 section 6 (memory, config,
 * session, scratch) plus what the run is (ids, attempt, deadline) and how to report on it.
 */
export interface SkillContext {
  /** Aborts at the attempt's deadline; long work should watch it. */
  signal: AbortSignal;
  executionId: string;
  skillId: string;
  skillVersion: string;
  traceId: string;
  caller: { id: string; type: string };
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
  /** Epoch milliseconds at which the attempt times out. */
  deadline: number;
  /** Lines go to the worker's structured log, tagged with the execution, skill and trace ids. */
  logger: SkillLogger;
  /** Reports progress (e.g. a percentage); readable in the execution's status. */
  progress(value: number): void;
  /** Long-term memory of this caller, in Redis. */
  memory: MemoryStore;
  config: Record<string, unknown>;
  session: Record<string, unknown>;
  scratch: Record<string, unknown>;
}

/** What a code skill's module exports. */
export type SkillExecutor<I = Record<string, unknown>, O = unknown> = (
  input: I,
  ctx: SkillContext,
) => O | Promise<O>;
