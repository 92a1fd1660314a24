import type { JobPayload, Logger } from '@skillrun/core';
import {
  type ExecutionEngine,
  type ExecutionStore,
  isPastQueueTimeout,
  jobDueAt,
  neverStartedError,
} from '@skillrun/core/data';
import { type Job, UnrecoverableError } from 'bullmq';
import type { SkillBody } from '../bodies/skill-body';
import type { WorkerMetrics } from '../metrics/worker-metrics';
import type { LoadedSkill } from '../skills/loaded-skill';
import type { Admitted } from './admission';
import { ProgressReporter } from './progress-reporter';

export interface AttemptStartDeps {
  store: ExecutionStore;
  /** Where the attempt's status moves go (ExecutionEngine.transitions). */
  engine: Pick<ExecutionEngine, 'transitions'>;
  metrics: WorkerMetrics;
  /** How often a running skill's progress is written to its record, at most. */
  progressIntervalMs: number;
}

/** An attempt started: what its run, and its end, need to know of its start. */
export interface Started extends Admitted {
  /** Every start so far, takeovers after a lost worker included: what the record's attempts shows. */
  starts: number;
  /** Whether this run started the attempt (a composite resumed after its steps did not). */
  fresh: boolean;
  progress: ProgressReporter;
  limit: Deadline;
}

/** When an attempt times out, and what set it. */
export interface Deadline {
  /** Epoch ms. */
  at: number;
  timeoutMs: number;
  /** The deadline of the composite that called it came first. */
  byParent: boolean;
}

/**
 * An attempt's due step: when it was due and with which inputs, whether it may still start (its
 * queue timeout), and its start: counted, its progress reporter made, its deadline set.
 */
export class AttemptStart {
  constructor(private readonly deps: AttemptStartDeps) {}

  /**
   * Due: the payload as it runs and when it was due; one taken past its queue timeout at its first
   * start is ended without running. Then the attempt is started: counted (once, by the run that
   * starts it), its progress reported, its deadline set.
   */
  async due(job: Job, admitted: Admitted): Promise<Started> {
    const { skill, body, number, attemptsStarted, startedAt, log } = admitted;
    // Only a trailing debounced execution reads its start from Redis (asDue).
    const { payload, dueAt } =
      admitted.payload.debounce?.mode === 'trailing'
        ? await this.asDue(admitted.payload, job)
        : { payload: admitted.payload, dueAt: jobDueAt(job) };
    if (
      job.attemptsMade === 0 &&
      attemptsStarted <= 1 &&
      isPastQueueTimeout(dueAt, payload.queue_timeout_ms, startedAt)
    ) {
      await this.neverStarted(payload, dueAt, startedAt, log.logger);
    }
    // Only an attempt that goes on (body.resumes) asks Redis whether this run starts it.
    const fresh = body.resumes ? await this.isNewAttempt(payload, body, number) : true;
    // A job held back until its launch was on the replicas (ACK_REPLICAS) and let go then starts
    // before the end of its hold, which its delay says: it waited no time past being due.
    const waitedMs = Math.max(0, startedAt - dueAt);
    if (fresh) this.deps.metrics.attemptStarted(payload.skill_id, number, waitedMs / 1000);
    const progress = new ProgressReporter(
      (report) => this.deps.engine.transitions.report(payload.execution_id, report),
      this.deps.progressIntervalMs,
    );
    // BullMQ counts each start of the job: a takeover after a lost worker is one more, but so is each
    // run of a composite after its steps end, which is the same attempt going on.
    const starts = body.countsStarts ? Math.max(number, attemptsStarted) : number;
    const limit = deadlineOf(payload, skill);
    // An attempt that goes on keeps the deadline its first run fixed.
    if (body.resumes) limit.at = await this.deps.store.deadlines.fix(payload.execution_id, number, limit.at);
    return { ...admitted, payload, starts, fresh, progress, limit };
  }

  /**
   * The payload as it runs, and when it was due (epoch ms). A trailing debounced execution runs
   * with the inputs of the last call that joined it, due `delay_ms` after that call as its record
   * says (its job's delay is the first call's); from its start on, a call with its key starts a new
   * execution.
   */
  private async asDue(payload: JobPayload, job: Job): Promise<{ payload: JobPayload; dueAt: number }> {
    const started = await this.deps.store.debounce.start(payload);
    if (!started) return { payload, dueAt: jobDueAt(job) };
    return { payload: { ...payload, inputs: started.inputs }, dueAt: started.dueAt };
  }

  /**
   * Ends, without running it, an execution taken past its queue timeout (a reader may have ended
   * it already), and fails its job for good.
   */
  private async neverStarted(
    payload: JobPayload,
    dueAt: number,
    now: number,
    logger: Logger,
  ): Promise<never> {
    const error = neverStartedError(dueAt, payload.queue_timeout_ms ?? 0, now);
    if ((await this.deps.engine.transitions.fail(payload.execution_id, 'timeout', error)) === 'applied') {
      this.deps.metrics.executionEnded(payload.skill_id, 'timeout', undefined);
    }
    logger.warn({ error }, 'execution never started: past its queue timeout');
    throw new UnrecoverableError(error.message);
  }

  /**
   * Whether this run starts the attempt: only the first run of an attempt that goes on does. One run
   * again when due finds its deadline kept; one run again after its steps finds steps of its own.
   */
  private async isNewAttempt(payload: JobPayload, { resumes }: SkillBody, number: number) {
    if (resumes === 'when-due')
      return (await this.deps.store.deadlines.attemptOf(payload.execution_id)) !== number;
    if (resumes !== 'after-steps') return true;
    const entries = await this.deps.store.steps.entries(payload.execution_id);
    return !entries.some((entry) => entry.attempt === number);
  }
}

/**
 * When an attempt starting now times out: the caller's timeout_ms or the skill's timeout, whichever
 * is sooner, and never after the deadline of the composite that called it. An attempt that goes on
 * (a composite waiting for its steps, a task, a remote skill between polls) keeps the deadline its
 * first run fixed instead (see due).
 */
function deadlineOf(payload: JobPayload, { definition }: LoadedSkill): Deadline {
  const timeoutMs = Math.min(payload.timeout_ms ?? Number.POSITIVE_INFINITY, definition.timeout);
  const start = Date.now();
  return {
    at: Math.min(start + timeoutMs, payload.deadline ?? Number.POSITIVE_INFINITY),
    timeoutMs,
    byParent: payload.deadline !== undefined && payload.deadline < start + timeoutMs,
  };
}
