import type { SkillMemory } from './skill-memory.js';

export type SkillLogLevel = 'debug' | 'info' | 'warn' | 'error';
export type SkillLogger = Record<SkillLogLevel, (message: string, fields?: Record<string, unknown>) => void>;

export interface InvokeOptions {
  /** The step's name in the composite's status (default `call-N`, N counting from 1). */
  step?: string;
  /** A version range of the skill (default: its latest version). */
  version?: string;
}

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
  /**
   * Runs another skill (listed in `calls`) as a step of this composite and resolves with its output;
   * rejects with a STEP_FAILED SkillError when the step fails. A composite is replayed from the start
   * each time its steps end, with the steps it already ran answering at once: it must decide what to
   * invoke only from its input and the outputs it gets, and leave side effects to the skills it calls.
   */
  invoke<T = unknown>(skill: string, inputs: Record<string, unknown>, options?: InvokeOptions): Promise<T>;
  /** Long-term memory of this caller, in Redis. */
  memory: SkillMemory;
  config: Record<string, unknown>;
  session: Record<string, unknown>;
  scratch: Record<string, unknown>;
}

/** What a code skill's module exports. */
export type SkillExecutor<I = Record<string, unknown>, O = unknown> = (
  input: I,
  ctx: SkillContext,
) => O | Promise<O>;
