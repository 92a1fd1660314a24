import {
  type ErrorBody,
  isRetryable,
  JobPayload,
  type Logger,
  SchemaValidator,
  SkillError,
  type SkillKind,
  type SkillSchemas,
  type TerminalStatus,
  toErrorBody,
} from '@skillrun/core';
import {
  type AttemptEnd,
  type ExecutionStore,
  isPastQueueTimeout,
  jobDueAt,
  neverStartedError,
  type TransitionCall,
} from '@skillrun/core/data';
import { DelayedError, type Job, UnrecoverableError, WaitingChildrenError } from 'bullmq';
import type { Attempt, BodyOutcome, SkillBody } from '../bodies/skill-body';
import type { FlowControl } from '../flow/flow-control';
import type { WorkerMetrics } from '../metrics/worker-metrics';
import type { LoadedSkill } from '../skills/loaded-skill';
import { ChunkWriter } from '../streaming/chunk-writer';
import type { StreamLimits } from '../streaming/stream-budget';
import { AttemptLog } from './attempt-log';
import type { Cancellations } from './cancellations';
import { type CheckedOutcome, OutputCheck } from './output-check';
import type { PendingOutcomes } from './pending-outcomes';
import { ProgressReporter } from './progress-reporter';

export interface AttemptRunnerDeps {
  /** Holds an attempt's outcome until its job ends, and writes it then. */
  outcomes: PendingOutcomes;
  /** Where a running attempt learns that its execution was canceled. */
  cancellations: Cancellations;
  store: ExecutionStore;
  schemas: SkillSchemas;
  logger: Logger;
  retryBackoffMs: number;
  /** This process' WORKER_ID, recorded with each outcome. */
  workerId: string;
  /** The largest output, as JSON bytes, an execution may complete with (MAX_OUTPUT_BYTES). */
  maxOutputBytes: number;
  /** How much an attempt may stream (MAX_CHUNK_BYTES, MAX_STREAM_BYTES). */
  stream: StreamLimits;
  /** How often a running skill's progress is written to its record, at most. */
  progressIntervalMs: number;
  /** The body that runs each kind of skill, and answers what the runner needs to know of it. */
  bodies: Record<SkillKind, SkillBody>;
  metrics: WorkerMetrics;
  /** The skills' concurrency limits: an execution over one is parked before it starts. */
  flow: FlowControl;
}

const payloadValidator = new SchemaValidator(JobPayload, 'job payload');

/** An attempt admitted to run: its execution holds its concurrency slots and has not ended. */
interface Admitted {
  payload: JobPayload;
  skill: LoadedSkill;
  body: SkillBody;
  /** The attempt, as retries count them (a takeover after a lost worker is not one). */
  number: number;
  /** BullMQ's starts of the job, less those that parked it. */
  attemptsStarted: number;
  startedAt: number;
  log: AttemptLog;
}

/** An attempt started: what its run, and its end, need to know of its start. */
interface Started extends Admitted {
  /** Every start so far, takeovers after a lost worker included: what the record's attempts shows. */
  starts: number;
  /** Whether this run started the attempt (a composite resumed after its steps did not). */
  fresh: boolean;
  progress: ProgressReporter;
  limit: Deadline;
}

/** When an attempt times out, and what set it. */
interface Deadline {
  /** Epoch ms. */
  at: number;
  timeoutMs: number;
  /** The deadline of the composite that called it came first. */
  byParent: boolean;
}

/** What the skill's body came to, and the writer of the chunks it streamed, if it did. */
interface Ran {
  outcome: BodyOutcome;
  chunks: ChunkWriter | undefined;
}

/**
 * One attempt of one execution: validate what came off the queue, run the skill's body under its
 * deadline, validate the output, and record the outcome. Nothing is written when an attempt starts
 * (BullMQ's job says so until the outcome is written); the outcome is written as the attempt's run
 * ends, just before BullMQ's completion of the job (PendingOutcomes). A failure that will be retried is
 * thrown as a plain Error (BullMQ backs off and tries again); a final one is recorded and thrown as
 * UnrecoverableError. A composite waiting for its steps throws WaitingChildrenError.
 */
export class AttemptRunner {
  /** The validate step. */
  private readonly output: OutputCheck;

  constructor(private readonly deps: AttemptRunnerDeps) {
    this.output = new OutputCheck(deps);
  }

  /**
   * The attempt's steps: admit, due, run, validate, settle. `start`: the start its consumer took of
   * the skill's rate limit, if it has one.
   */
  async run(job: Job, token: string | undefined, skill: LoadedSkill, start?: string): Promise<void> {
    const admitted = await this.admit(job, token, skill, start);
    if (!admitted) return;
    const started = await this.due(job, admitted);
    const ran = await this.runBody(job, token, started);
    await this.settle(job, token, started, await this.output.check(ran.outcome, ran.chunks, skill));
  }

  /**
   * Admit: the job's payload, read for this very skill version, and its execution given its
   * concurrency slots (else its job is parked: DelayedError). Nothing to run (undefined) when the
   * execution has ended meanwhile.
   */
  private async admit(
    job: Job,
    token: string | undefined,
    skill: LoadedSkill,
    start: string | undefined,
  ): Promise<Admitted | undefined> {
    const body = this.deps.bodies[skill.body.kind];
    const payload = this.parsePayload(job, skill);
    const admitted = await this.deps.flow.admit(job, token, payload, skill.definition, start);
    // BullMQ counts each time a job is taken, parked ones too, which did not start.
    const attemptsStarted = job.attemptsStarted - admitted.parks;
    const number = job.attemptsMade + 1;
    const startedAt = Date.now();
    const log = new AttemptLog(this.deps.logger, {
      execution_id: payload.execution_id,
      skill_id: payload.skill_id,
      trace_id: payload.trace_id,
      attempt: number,
    });
    // A job run again (after its worker stopped, a failed attempt, or a composite's steps), or
    // parked for a while, may have ended already: canceled meanwhile, or its outcome written before
    // BullMQ heard of it.
    if (
      admitted.ended ||
      ((job.stalledCounter > 0 || attemptsStarted > 1) &&
        (await this.deps.store.records.isFinal(payload.execution_id)))
    ) {
      if (body.handsIn) {
        await this.handedIn(payload, log.logger);
        return undefined;
      }
      await body.abandon?.(payload, skill);
      log.logger.info(
        'execution already ended (canceled, or before its worker stopped); not running it again',
      );
      return undefined;
    }
    return { payload, skill, body, number, attemptsStarted, startedAt, log };
  }

  /**
   * Due: the payload as it runs and when it was due; one taken past its queue timeout at its first
   * start is ended without running. Then the attempt is started: counted (once, by the run that
   * starts it), its progress reported, its deadline set.
   */
  private async due(job: Job, admitted: Admitted): Promise<Started> {
    const { skill, body, number, attemptsStarted, startedAt, log } = admitted;
    const { payload, dueAt } = await this.asDue(admitted.payload, job);
    if (
      job.attemptsMade === 0 &&
      attemptsStarted <= 1 &&
      isPastQueueTimeout(dueAt, payload.queue_timeout_ms, startedAt)
    ) {
      await this.neverStarted(payload, dueAt, startedAt, log.logger);
    }
    const fresh = await this.isNewAttempt(payload, body, number);
    // A job held back until its launch was on the replicas (ACK_REPLICAS) and let go then starts
    // before the end of its hold, which its delay says: it waited no time past being due.
    const waitedMs = Math.max(0, startedAt - dueAt);
    if (fresh) this.deps.metrics.attemptStarted(payload.skill_id, number, waitedMs / 1000);
    const progress = new ProgressReporter(
      (value) => this.deps.store.transitions.progress(payload.execution_id, value),
      this.deps.progressIntervalMs,
    );
    // BullMQ counts each start of the job: a takeover after a lost worker is one more, but so is each
    // run of a composite after its steps end, which is the same attempt going on.
    const starts = body.countsStarts ? Math.max(number, attemptsStarted) : number;
    const limit = await this.deadline(payload, skill, body, number);
    return { ...admitted, payload, starts, fresh, progress, limit };
  }

  /**
   * Run: the skill's body, once, under the attempt's deadline and its execution's cancel watch; a
   * run whose execution was canceled meanwhile comes to `canceled`, whatever it answered.
   */
  private async runBody(job: Job, token: string | undefined, started: Started): Promise<Ran> {
    const { payload, skill, body, number, startedAt, limit, progress, log } = started;
    log.debug('attempt started');
    const cancel = this.deps.cancellations.watch(payload.execution_id);
    let chunks: ChunkWriter | undefined;
    const writer = () => {
      chunks ??= this.chunkWriter(payload.execution_id, log);
      return chunks;
    };
    const outcome = await this.attempt(body, {
      job,
      token,
      payload,
      skill,
      number,
      startedAt,
      deadline: limit.at,
      cancel,
      progress,
      get logger() {
        return log.logger;
      },
      get chunks() {
        return writer();
      },
    }).finally(() => cancel.release());
    return { outcome: cancel.canceled ? { ok: false, canceled: true } : outcome, chunks };
  }

  /**
   * Settle: a canceled execution's record was written by the cancel request; a waiting one's job is
   * parked (WaitingChildrenError, DelayedError); any other has its outcome written as its job ends,
   * completed or failed (retried, or for good).
   */
  private async settle(
    job: Job,
    token: string | undefined,
    started: Started,
    outcome: CheckedOutcome,
  ): Promise<void> {
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
        this.deps.store.transitions.completeCall(payload.execution_id, outcome.json, end),
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

  /** Where an attempt's chunks go, once its skill first streams one. */
  private chunkWriter(executionId: string, log: AttemptLog): ChunkWriter {
    return new ChunkWriter({
      chunks: this.deps.store.chunks,
      executionId,
      limits: this.deps.stream,
      onLost: (error) =>
        log.logger.warn(
          { err: (error as Error).message },
          'streamed chunks could not be written; they are lost',
        ),
    });
  }

  /**
   * The payload as it runs, and when it was due (epoch ms). A trailing debounced execution runs
   * with the inputs of the last call that joined it, due `delay_ms` after that call as its record
   * says (its job's delay is the first call's); from its start on, a call with its key starts a new
   * execution.
   */
  private async asDue(payload: JobPayload, job: Job): Promise<{ payload: JobPayload; dueAt: number }> {
    const started =
      payload.debounce?.mode === 'trailing' ? await this.deps.store.debounce.start(payload) : null;
    if (!started) return { payload, dueAt: jobDueAt(job) };
    return { payload: { ...payload, inputs: started.inputs }, dueAt: started.dueAt };
  }

  /**
   * A task completed or declined through the gateway, its job promoted so that BullMQ ends it (and a
   * composite waiting for it goes on): counted here, once, as the job ends.
   */
  private async handedIn(payload: JobPayload, logger: Logger): Promise<void> {
    const execution = await this.deps.store.records.get(payload.execution_id);
    // A canceled one was counted by the gateway that canceled it.
    if (!execution || execution.status === 'canceled') return;
    const startedAt = Date.parse(execution.timestamps.started_at ?? execution.timestamps.created_at);
    this.deps.metrics.executionEnded(
      payload.skill_id,
      execution.status as Exclude<TerminalStatus, 'canceled'>,
      startedAt,
    );
    logger.info({ status: execution.status, by: execution.worker_id }, `task ${execution.status}`);
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
    if ((await this.deps.store.transitions.fail(payload.execution_id, 'timeout', error)) === 'applied') {
      this.deps.metrics.executionEnded(payload.skill_id, 'timeout', undefined);
    }
    logger.warn({ error }, 'execution never started: past its queue timeout');
    throw new UnrecoverableError(error.message);
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
      void this.deps.store.transitions
        .retrying(payload.execution_id, number, startedAt, error, this.deps.workerId)
        .catch(() => {});
      throw new Error(error.message);
    }
    this.ended(job, started, status, (end) =>
      this.deps.store.transitions.failCall(payload.execution_id, status, error, end),
    );
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
    const last = progress.finish();
    const end = {
      attempt: starts,
      startedAt,
      workerId: this.deps.workerId,
      ...(last === undefined ? {} : { progress: last }),
    };
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

  /**
   * When this attempt times out: the caller's timeout_ms or the skill's timeout, whichever is
   * sooner, and never after the deadline of the composite that called it. An attempt that goes on
   * (a composite waiting for its steps, a task, a remote skill between polls) keeps its deadline.
   */
  private async deadline(
    payload: JobPayload,
    { definition }: LoadedSkill,
    body: SkillBody,
    attempt: number,
  ): Promise<Deadline> {
    const timeoutMs = Math.min(payload.timeout_ms ?? Number.POSITIVE_INFINITY, definition.timeout);
    const start = Date.now();
    let at = Math.min(start + timeoutMs, payload.deadline ?? Number.POSITIVE_INFINITY);
    if (body.resumes) {
      at = await this.deps.store.deadlines.fix(payload.execution_id, attempt, at);
    }
    return {
      at,
      timeoutMs,
      byParent: payload.deadline !== undefined && payload.deadline < start + timeoutMs,
    };
  }

  /**
   * Runs the skill's body once, its inputs checked against the skill's input schema first; what it
   * spent beyond its own run is reported before the outcome is recorded.
   */
  private async attempt(body: SkillBody, attempt: Omit<Attempt, 'input'>): Promise<BodyOutcome> {
    const { definition, publication } = attempt.skill;
    let input: Attempt['input'];
    try {
      input = this.deps.schemas.assertInputs(definition.input, attempt.payload.inputs, {
        coerce: publication['x-coercion'] ?? true,
        basePath: '/inputs',
      });
    } catch (error) {
      return { ok: false, error: toErrorBody(error, 'INVALID_INPUT') };
    }
    if (Date.now() >= attempt.deadline) return { ok: false, timedOut: true };
    // Assigned, not spread: a spread would call the attempt's lazy `logger` getter.
    const outcome = await body.run(Object.assign(attempt, { input }));
    if ('waiting' in outcome) return outcome;
    // Before the outcome is recorded, so that a finished composite shows all its steps spent.
    await body.reportUsage?.(attempt.payload.execution_id, attempt.number).catch(() => {});
    return outcome;
  }

  private timeoutError(limit: Deadline, maxAttempts: number): ErrorBody {
    const message = limit.byParent
      ? 'Skill execution reached the deadline of the composite execution that called it'
      : `Skill execution exceeded the configured timeout of ${limit.timeoutMs}ms`;
    return new SkillError('EXECUTION_TIMEOUT', message, {
      retry: { suggested_delay_ms: this.deps.retryBackoffMs, max_attempts: maxAttempts },
    }).toBody();
  }

  /** The job's payload, re-validated: it must be for the very skill version this queue serves. */
  private parsePayload(job: Job, { definition }: LoadedSkill): JobPayload {
    try {
      const payload = payloadValidator.parse(job.data);
      if (payload.skill_id !== definition.name || payload.skill_version !== definition.version) {
        throw new SkillError(
          'INVALID_INPUT',
          `The job is for ${payload.skill_id}@${payload.skill_version}, not ${definition.name}@${definition.version}`,
          { recoverable: false },
        );
      }
      return payload;
    } catch (error) {
      this.deps.logger.error(
        { job_id: job.id, error: toErrorBody(error, 'INVALID_INPUT') },
        'unreadable job',
      );
      const executionId = typeof job.data?.execution_id === 'string' ? job.data.execution_id : undefined;
      if (executionId) {
        void this.deps.store.transitions
          .fail(executionId, 'failed', toErrorBody(error, 'INVALID_INPUT'))
          .catch(() => {});
      }
      throw new UnrecoverableError('unreadable job payload');
    }
  }
}
