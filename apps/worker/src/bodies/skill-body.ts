import type { ErrorBody, JobPayload, Logger } from '@skillrun/core';
import type { Job } from 'bullmq';
import type { CancelWatch } from '../cancellations';
import type { LoadedSkill } from '../loaded-skill';
import type { ProgressReporter } from '../progress-reporter';

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
}

export type BodyOutcome =
  | { ok: true; output: unknown }
  | { ok: false; error: ErrorBody }
  | { ok: false; timedOut: true }
  /** Stopped because the execution was canceled: nothing is recorded. */
  | { ok: false; canceled: true }
  /**
   * Waits without holding a worker slot: a composite for its steps (BullMQ runs it again after), a
   * task `until` its deadline (or until someone hands it in).
   */
  | { waiting: true; until?: number };

/** How a skill's body runs: code in a thread, a prompt on an LLM, or a composite of other skills. */
export interface SkillBody {
  run(attempt: Attempt): Promise<BodyOutcome>;
  /** Called when a job comes back for an execution that ended meanwhile (canceled): let go of it. */
  abandon?(payload: JobPayload, skill: LoadedSkill): Promise<void>;
}
