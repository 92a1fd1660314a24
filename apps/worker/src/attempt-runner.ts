import {
  type ErrorBody,
  type ExecutionStore,
  isRetryable,
  JobPayload,
  type Logger,
  SchemaValidator,
  SkillError,
  type SkillSchemas,
  toErrorBody,
} from '@skillrun/core';
import { type Job, UnrecoverableError } from 'bullmq';
import type { SkillSandbox } from './sandbox/skill-sandbox';
import type { LoadedSkill } from './skill-loader';

export interface AttemptRunnerDeps {
  store: ExecutionStore;
  sandbox: SkillSandbox;
  schemas: SkillSchemas;
  logger: Logger;
  redis: { url: string; prefix: string };
  retryBackoffMs: number;
}

const payloadValidator = new SchemaValidator(JobPayload, 'job payload');
const now = () => new Date().toISOString();

/**
 * One attempt of one execution: validate what came off the queue, run the skill in the sandbox
 * under its deadline, validate the output, and record the outcome. A failure that will be retried
 * is thrown as a plain Error (BullMQ backs off and tries again); a final one is recorded and thrown
 * as UnrecoverableError.
 */
export class AttemptRunner {
  constructor(private readonly deps: AttemptRunnerDeps) {}

  async run(job: Job, skill: LoadedSkill): Promise<void> {
    const { store } = this.deps;
    const payload = this.parsePayload(job, skill);
    const attempt = job.attemptsMade + 1;
    const maxAttempts = job.opts.attempts ?? 1;
    const logger = this.deps.logger.child({
      execution_id: payload.execution_id,
      skill_id: payload.skill_id,
      trace_id: payload.trace_id,
      attempt,
    });

    const started = await store.startAttempt(payload.execution_id, attempt, now());
    if (started !== 'applied') {
      logger.warn({ record: started }, 'execution record is gone or already final; skipping');
      return;
    }
    logger.info('attempt started');
    const error = await this.attempt(payload, skill, attempt, maxAttempts, logger);
    if (!error) {
      logger.info('execution completed');
      return;
    }
    const willRetry = isRetryable(error) && attempt < maxAttempts;
    logger.warn({ error, will_retry: willRetry }, 'attempt failed');
    if (willRetry) throw new Error(error.message);
    await store.fail(
      payload.execution_id,
      error.code === 'EXECUTION_TIMEOUT' ? 'timeout' : 'failed',
      error,
      now(),
    );
    throw new UnrecoverableError(error.message);
  }

  /** Runs the skill once; returns the error that ended the attempt, or undefined on success. */
  private async attempt(
    payload: JobPayload,
    skill: LoadedSkill,
    attempt: number,
    maxAttempts: number,
    logger: Logger,
  ): Promise<ErrorBody | undefined> {
    const { schemas, sandbox, store } = this.deps;
    const { definition } = skill;
    let input: Record<string, unknown>;
    try {
      input = schemas.assertInputs(definition.input, payload.inputs, {
        coerce: skill.publication['x-coercion'] ?? true,
        basePath: '/inputs',
      });
    } catch (error) {
      return toErrorBody(error, 'INVALID_INPUT');
    }
    const timeoutMs = Math.min(payload.timeout_ms ?? Number.POSITIVE_INFINITY, definition.timeout);
    const outcome = await sandbox.run({
      module: skill.module,
      input,
      meta: {
        executionId: payload.execution_id,
        skillId: definition.name,
        skillVersion: definition.version,
        traceId: payload.trace_id,
        caller: payload.caller,
        attempt,
      },
      redis: this.deps.redis,
      timeoutMs,
      onEvent: (event) => {
        if (event.type === 'log') logger[event.level]({ skill_log: true, ...event.fields }, event.message);
        else void store.progress(payload.execution_id, event.value, now()).catch(() => {});
      },
    });
    if ('timedOut' in outcome) return this.timeoutError(timeoutMs, maxAttempts);
    if (!outcome.ok) return outcome.error;
    const checked = schemas.validate(definition.output, outcome.output, '/output');
    if (!checked.ok) {
      return new SkillError('INVALID_OUTPUT', "The skill's output does not match its output schema", {
        details: checked.violations,
      }).toBody();
    }
    await store.complete(payload.execution_id, checked.value, now());
    return undefined;
  }

  private timeoutError(timeoutMs: number, maxAttempts: number): ErrorBody {
    return new SkillError(
      'EXECUTION_TIMEOUT',
      `Skill execution exceeded the configured timeout of ${timeoutMs}ms`,
      {
        retry: { suggested_delay_ms: this.deps.retryBackoffMs, max_attempts: maxAttempts },
      },
    ).toBody();
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
