import { type ErrorBody, isRetryable, SkillError, type TerminalStatus } from '@skillrun/core';
import type { AttemptEnd, ExecutionEngine, ExecutionStore, TransitionCall } from '@skillrun/core/data';
import { DelayedError, type Job, UnrecoverableError, WaitingChildrenError } from 'bullmq';
import type { BodyOutcome } from '../bodies/skill-body';
import type { WorkerMetrics } from '../metrics/worker-metrics';
import type { Deadline, Started } from './attempt-start';
import type { CheckedOutcome } from './output-check';
import type { PendingOutcomes } from './pending-outcomes';

export interface SettlementDeps {
  /** Holds an attempt's outcome until its job ends, and writes it then. */
  outcomes: PendingOutcomes;
  store: ExecutionStore;
  /** Where the attempt's status moves go (ExecutionEngine.transitions). */
  engine: Pick<ExecutionEngine, 'transitions'>;
  metrics: WorkerMetrics;
  retryBackoffMs: number;
  /** This process' WORKER_ID, recorded with each outcome. */
  workerId: string;
}

/**
 * An attempt's settle step: its outcome written as its job ends (PendingOutcomes), a failure retried
 * or final, a waiting attempt's job parked, and its end counted and logged once.
 */
export class Settlement {
  constructor(private readonly deps: SettlementDeps) {}

  /**
   * Settle: a canceled execution's record was written by the cancel request; a waiting one's job is
   * parked (WaitingChildrenError, DelayedError); any other has its outcome written as its job ends,
   * completed or failed (retried, or for good). Synchronous but for a waiting one (its job's park):
   * the outcome's write is only attached here, so the attempt ends in the same turn.
   */
  settle(
    job: Job,
    token: string | undefined,
    started: Started,
    outcome: CheckedOutcome,
  ): Promise<never> | undefined {
    const { payload, progress, log, limit } = started;
    if ('canceled' in outcome) {
      // Whatever the skill did after the cancel request is not recorded.
      progress.finish();
      log.logger.info('attempt stopped: the execution was canceled');
      return;
    }
    if ('waiting' in outcome) return this.park(job, token, started, outcome);
    if (outcome.ok) {
      this.ended(job, started, 'completed', (end) =>
        this.deps.engine.transitions.completeCall(payload.execution_id, outcome.json, end),
      );
      return;
    }
    const error = 'error' in outcome ? outcome.error : this.timeoutError(limit, job.opts.attempts ?? 1);
    this.failed(job, started, error);
  }

  /**
   * Parks a waiting attempt's job without a slot: until its steps end (WaitingChildrenError), or
   * until `until` (its deadline) unless its task is handed in or its step ends first, which promote it.
   */
  private async park(
    job: Job,
    token: string | undefined,
    { payload, progress, log }: Started,
    outcome: Extract<BodyOutcome, { waiting: true }>,
  ): Promise<never> {
    progress.finish();
    if (outcome.until === undefined) {
      log.debug('waiting for a step');
      throw new WaitingChildrenError();
    }
    await job.moveToDelayed(outcome.until, token);
    // Handed in (or its step ended) before it was parked, nobody could promote it: brought back here.
    if ((await this.deps.store.records.isFinal(payload.execution_id)) || (await outcome.woken?.())) {
      await job.promote().catch(() => {});
    }
    throw new DelayedError();
  }

  /** Records a failed attempt: retried (thrown as an Error) or final (UnrecoverableError). */
  private failed(job: Job, started: Started, error: ErrorBody): never {
    const { payload, number, startedAt } = started;
    const status = error.code === 'EXECUTION_TIMEOUT' ? 'timeout' : 'failed';
    const pastParentDeadline = payload.deadline !== undefined && Date.now() >= payload.deadline;
    const willRetry = isRetryable(error) && number < (job.opts.attempts ?? 1) && !pastParentDeadline;
    started.log.logger.warn({ error, will_retry: willRetry }, 'attempt failed');
    if (willRetry) {
      started.progress.finish();
      if (status === 'timeout') this.deps.metrics.attemptTimedOut(payload.skill_id);
      void this.deps.engine.transitions
        .retrying(payload.execution_id, number, startedAt, error, this.deps.workerId)
        .catch(() => {});
      throw new Error(error.message);
    }
    this.ended(job, started, status, (end) =>
      this.deps.engine.transitions.failCall(payload.execution_id, status, error, end),
    );
    throw new UnrecoverableError(error.message);
  }

  /**
   * Has the outcome written as this attempt returns (or throws), just before BullMQ completes (or
   * finally fails) the job, without waiting for it here. The end is counted once, by the
   * worker whose write made it final (a composite's deadline may be noticed here and by a sweeper
   * at once).
   */
  private ended(
    job: Job,
    started: Started,
    status: Exclude<TerminalStatus, 'canceled'>,
    write: (end: AttemptEnd) => TransitionCall,
  ): void {
    const { payload, number, starts, startedAt, fresh, progress } = started;
    const end = { attempt: starts, startedAt, workerId: this.deps.workerId, ...progress.finish() };
    void this.deps.outcomes.attach(String(job.id), write(end)).then(
      async (result) => {
        if (result !== 'applied') return;
        const { metrics } = this.deps;
        if (status === 'timeout') metrics.attemptTimedOut(payload.skill_id);
        const record = fresh && number === 1 ? null : await this.deps.store.records.get(payload.execution_id);
        const firstStart = record ? Date.parse(record.timestamps.started_at ?? '') : startedAt;
        metrics.executionEnded(payload.skill_id, status, firstStart);
        const level = status === 'completed' ? 'info' : 'warn';
        started.log.line(level, { status, duration_ms: Date.now() - firstStart }, `execution ${status}`);
      },
      (error: unknown) =>
        started.log.logger.error({ err: (error as Error).message }, 'could not record the outcome'),
    );
  }

  private timeoutError(limit: Deadline, maxAttempts: number): ErrorBody {
    const message = limit.byParent
      ? 'Skill execution reached the deadline of the composite execution that called it'
      : `Skill execution exceeded the configured timeout of ${limit.timeoutMs}ms`;
    return new SkillError('EXECUTION_TIMEOUT', message, {
      retry: { suggested_delay_ms: this.deps.retryBackoffMs, max_attempts: maxAttempts },
    }).toBody();
  }
}
