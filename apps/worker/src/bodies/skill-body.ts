import type { ErrorBody, JobPayload, Logger } from '@skillrun/core';
import type { Job } from 'bullmq';
import type { CancelWatch } from '../attempt/cancellations';
import type { ProgressReporter } from '../attempt/progress-reporter';
import type { LoadedSkill } from '../skills/loaded-skill';
import type { ChunkWriter } from '../streaming/chunk-writer';

/** One attempt of one execution, as the body of its skill sees it. */
export interface Attempt {
  job: Job;
  /** The worker's lock on the job, which a composite needs to wait for its steps. */
  token: string | undefined;
  payload: JobPayload;
  skill: LoadedSkill;
  /** The inputs, validated (and coerced) against the skill's input schema. */
  input: Record<string, unknown>;
  /** 1 for the first attempt, 2 for the first retry, ... */
  number: number;
  /** Epoch ms at which this run of the attempt started (a composite runs again after its steps). */
  startedAt: number;
  /** Epoch ms at which the attempt times out. */
  deadline: number;
  /** Fires when the execution is canceled (its record already says so): the body stops. */
  cancel: CancelWatch;
  /** Lines about this attempt (tagged with its execution, skill and trace ids). */
  logger: Logger;
  /** Where the skill's progress goes. */
  progress: ProgressReporter;
  /** Where the output it streams goes (ctx.emit, an llm skill's deltas); made when first asked. */
  chunks: ChunkWriter;
}

export type BodyOutcome =
  | { ok: true; output: unknown }
  | { ok: false; error: ErrorBody }
  | { ok: false; timedOut: true }
  /** Stopped because the execution was canceled: nothing is recorded. */
  | { ok: false; canceled: true }
  /**
   * Waits without holding a worker slot: a composite for its steps (BullMQ runs it again after; a
   * step launched apart wakes it, or it looks again `until`), a task `until` its deadline (or until
   * someone hands it in). `woken`, asked once its job is parked: whether what it waits for came
   * while it was being parked (it is run again at once).
   */
  | { waiting: true; until?: number; woken?: () => Promise<boolean> };

/**
 * How an attempt goes on after its first run, if it does: `after-steps`, run again each time the steps
 * it launched end (a composite); `when-due`, its job parked until a moment and run again then (a task
 * at its deadline, a remote skill at each poll of its provider). An attempt that goes on keeps the
 * deadline of its first run.
 */
export type Resumption = false | 'after-steps' | 'when-due';

/**
 * How one kind of skill runs (code in a thread, a prompt on an LLM, a composite of other skills, ...)
 * and what the attempt runner needs to know of it: the body of each kind answers, so that no caller
 * switches on the kind.
 */
export interface SkillBody {
  /** Whether, and when, an attempt runs again before it ends. */
  readonly resumes: Resumption;
  /**
   * Whether each start of the job (BullMQ's attemptsStarted, a takeover after a lost worker included)
   * is a start of the attempt for the record's `attempts`: not so for a body that runs again after
   * its steps, each run the same attempt going on.
   */
  readonly countsStarts: boolean;
  /**
   * Whether its executions are ended through the gateway rather than by a run (a task handed in): a job
   * back for such an ended execution has its end counted, where any other is let go (abandon).
   */
  readonly handsIn: boolean;
  run(attempt: Attempt): Promise<BodyOutcome>;
  /** Called when a job comes back for an execution that ended meanwhile (canceled): let go of it. */
  abandon?(payload: JobPayload, skill: LoadedSkill): Promise<void>;
  /**
   * Adds to the record what an attempt spent beyond its own run (a composite: its steps' LLM usage),
   * once the attempt has ended and before its outcome is recorded. A body that runs an LLM itself
   * records its usage as it goes.
   */
  reportUsage?(executionId: string, attempt: number): Promise<void>;
}
