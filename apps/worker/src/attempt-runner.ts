import {
  type ErrorBody,
  type ExecutionStore,
  isRetryable,
  JobPayload,
  type Logger,
  SchemaValidator,
  SkillError,
  type SkillSchemas,
  type TerminalStatus,
  type TransitionResult,
  toErrorBody,
} from '@skillrun/core';
import { type Job, UnrecoverableError, WaitingChildrenError } from 'bullmq';
import type { Attempt, BodyOutcome, SkillBody } from './bodies/skill-body';
import type { WorkerMetrics } from './metrics/worker-metrics';
import type { LoadedSkill } from './skill-loader';

export interface AttemptRunnerDeps {
  store: ExecutionStore;
  schemas: SkillSchemas;
  logger: Logger;
  retryBackoffMs: number;
  /** The body that runs each kind of skill. */
  bodies: Record<LoadedSkill['body']['kind'], SkillBody>;
  /** Called when an attempt of a composite ends, to add its steps' LLM usage to its record. */
  onCompositeEnd(executionId: string, attempt: number): Promise<void>;
  metrics: WorkerMetrics;
}

const payloadValidator = new SchemaValidator(JobPayload, 'job payload');
const now = () => new Date().toISOString();

/**
 * One attempt of one execution: validate what came off the queue, run the skill's body under its
 * deadline, validate the output, and record the outcome. A failure that will be retried is thrown
 * as a plain Error (BullMQ backs off and tries again); a final one is recorded and thrown as
 * UnrecoverableError. A composite waiting for its steps throws WaitingChildrenError.
 */
export class AttemptRunner {
  constructor(private readonly deps: AttemptRunnerDeps) {}

  async run(job: Job, token: string | undefined, skill: LoadedSkill): Promise<void> {
    const { store, metrics } = this.deps;
    const payload = this.parsePayload(job, skill);
    const number = job.attemptsMade + 1;
    const maxAttempts = job.opts.attempts ?? 1;
    const logger = this.deps.logger.child({
      execution_id: payload.execution_id,
      skill_id: payload.skill_id,
      trace_id: payload.trace_id,
      attempt: number,
    });

    const startedAt = Date.now();
    const started = await store.startAttempt(payload.execution_id, number, new Date(startedAt).toISOString());
    if (started !== 'applied') {
      logger.warn({ record: started }, 'execution record is gone or already final; skipping');
      return;
    }
    const newAttempt = await this.isNewAttempt(payload, skill, number);
    if (newAttempt) metrics.attemptStarted(payload.skill_id, number, (startedAt - job.timestamp) / 1000);
    const end = { payload, firstStart: number === 1 && newAttempt ? startedAt : undefined };
    const limit = await this.deadline(payload, skill, number);
    logger.info('attempt started');
    const outcome = await this.attempt({ job, token, payload, skill, number, deadline: limit.at, logger });
    if ('waiting' in outcome) {
      logger.info('waiting for a step');
      throw new WaitingChildrenError();
    }
    if (outcome.ok) {
      await this.ended(end, 'completed', store.complete(payload.execution_id, outcome.output, now()));
      logger.info('execution completed');
      return;
    }
    const error = 'error' in outcome ? outcome.error : this.timeoutError(limit, maxAttempts);
    const status = error.code === 'EXECUTION_TIMEOUT' ? 'timeout' : 'failed';
    const pastParentDeadline = payload.deadline !== undefined && Date.now() >= payload.deadline;
    const willRetry = isRetryable(error) && number < maxAttempts && !pastParentDeadline;
    logger.warn({ error, will_retry: willRetry }, 'attempt failed');
    if (willRetry) {
      if (status === 'timeout') metrics.attemptTimedOut(payload.skill_id);
      throw new Error(error.message);
    }
    await this.ended(end, status, store.fail(payload.execution_id, status, error, now()));
    throw new UnrecoverableError(error.message);
  }

  /** A composite runs again each time its steps end: only its first run of an attempt starts it. */
  private async isNewAttempt(payload: JobPayload, { definition }: LoadedSkill, number: number) {
    if (definition.mode !== 'composite') return true;
    const entries = await this.deps.store.stepEntries(payload.execution_id);
    return !entries.some((entry) => entry.attempt === number);
  }

  /**
   * Counts an execution's end once, by the worker whose write made it final (a composite's deadline
   * may be noticed here and by a sweeper at once). How long it ran is known here when this run
   * started it, else read from its record.
   */
  private async ended(
    { payload, firstStart }: { payload: JobPayload; firstStart: number | undefined },
    status: TerminalStatus,
    recording: Promise<TransitionResult>,
  ): Promise<void> {
    if ((await recording) !== 'applied') return;
    if (status === 'timeout') this.deps.metrics.attemptTimedOut(payload.skill_id);
    const record = firstStart === undefined ? await this.deps.store.get(payload.execution_id) : null;
    const startedAt = firstStart ?? Date.parse(record?.timestamps.started_at ?? '');
    this.deps.metrics.executionEnded(payload.skill_id, status, startedAt);
  }

  /**
   * When this attempt times out: the caller's timeout_ms or the skill's timeout, whichever is
   * sooner, and never after the deadline of the composite that called it. A composite keeps the
   * deadline of its attempt while it waits for its steps.
   */
  private async deadline(payload: JobPayload, { definition }: LoadedSkill, attempt: number) {
    const timeoutMs = Math.min(payload.timeout_ms ?? Number.POSITIVE_INFINITY, definition.timeout);
    const start = Date.now();
    let at = Math.min(start + timeoutMs, payload.deadline ?? Number.POSITIVE_INFINITY);
    if (definition.mode === 'composite') {
      at = await this.deps.store.attemptDeadline(payload.execution_id, attempt, at);
    }
    return {
      at,
      timeoutMs,
      byParent: payload.deadline !== undefined && payload.deadline < start + timeoutMs,
    };
  }

  /** Runs the skill's body once; an ok outcome's output has been validated (not yet recorded). */
  private async attempt(attempt: Omit<Attempt, 'input'>): Promise<BodyOutcome> {
    const { schemas } = this.deps;
    const { definition, publication, body } = attempt.skill;
    let input: Attempt['input'];
    try {
      input = schemas.assertInputs(definition.input, attempt.payload.inputs, {
        coerce: publication['x-coercion'] ?? true,
        basePath: '/inputs',
      });
    } catch (error) {
      return { ok: false, error: toErrorBody(error, 'INVALID_INPUT') };
    }
    if (Date.now() >= attempt.deadline) return { ok: false, timedOut: true };
    const outcome = await this.deps.bodies[body.kind].run({ ...attempt, input });
    if ('waiting' in outcome) return outcome;
    // Before the outcome is recorded, so that a finished composite shows all its steps spent.
    if (definition.mode === 'composite') {
      await this.deps.onCompositeEnd(attempt.payload.execution_id, attempt.number).catch(() => {});
    }
    if (!outcome.ok) return outcome;
    const checked = schemas.validate(definition.output, outcome.output, '/output');
    if (!checked.ok) {
      const error = new SkillError('INVALID_OUTPUT', "The skill's output does not match its output schema", {
        details: checked.violations,
      });
      return { ok: false, error: error.toBody() };
    }
    return { ok: true, output: checked.value };
  }

  private timeoutError(limit: { timeoutMs: number; byParent: boolean }, maxAttempts: number): ErrorBody {
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
        void this.deps.store
          .fail(executionId, 'failed', toErrorBody(error, 'INVALID_INPUT'), now())
          .catch(() => {});
      }
      throw new UnrecoverableError('unreadable job payload');
    }
  }
}
