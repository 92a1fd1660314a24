import type { SkillMemory } from './skill-memory.js';

export type SkillLogLevel = 'debug' | 'info' | 'warn' | 'error';
export type SkillLogger = Record<SkillLogLevel, (message: string, fields?: Record<string, unknown>) => void>;

export interface InvokeOptions {
  /** The step's name in the composite's status (default `call-N`, N counting from 1). */
  step?: string;
  /** A version range of the skill (default: its latest version). */
  version?: string;
  /**
   * The step's context.concurrency_key, under which the skill's `concurrency.per_key` counts it. A
   * step has none unless given one here: it does not inherit the composite's.
   */
  concurrencyKey?: string;
}

/**
 * The execution's metadata (context.metadata, inherited by a composite's steps), which the skill may
 * change as it runs: each change is written to the record as progress is (at most once per
 * PROGRESS_INTERVAL_MS, the last with the outcome), so that GET status and GET /executions'
 * `metadata.<key>=` filter see it. A change that would leave it over 4096 bytes as JSON throws
 * OUTPUT_TOO_LARGE, and a value JSON cannot say INVALID_OUTPUT; nothing changes then. Each attempt
 * begins from what the execution was launched with (a retry, or a composite replayed, sets its keys
 * again).
 */
export interface SkillMetadata {
  /** A copy of the metadata as it stands. */
  current(): Record<string, unknown>;
  /** Sets a top-level key to a JSON value. */
  set(key: string, value: unknown): void;
  /** Removes a top-level key. */
  del(key: string): void;
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
   * Streams a chunk of output (any JSON value: a string of text, an object, …) while the skill
   * runs: callers see each one as it comes (GET events `chunk` events, the client's `stream()`,
   * `skillrun invoke --wait`), in order, before the end; the output the skill returns is still the
   * result. Throws OUTPUT_TOO_LARGE for a chunk over MAX_CHUNK_BYTES or once the attempt's chunks add
   * up to over MAX_STREAM_BYTES (the execution then fails, even if the skill catches it), and
   * INVALID_OUTPUT for a value JSON cannot say. In a composite, the chunks emitted again while it
   * replays the calls it already made are not sent twice.
   */
  emit(chunk: unknown): void;
  /** The execution's metadata, which the skill may change as it runs (SkillMetadata). */
  metadata: SkillMetadata;
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
