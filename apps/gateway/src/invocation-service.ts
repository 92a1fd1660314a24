import { randomUUID } from 'node:crypto';
import {
  type Execution,
  type ExecutionStore,
  InvocationRequest,
  type JobPayload,
  newTraceId,
  SchemaValidator,
  SkillError,
  type SkillSchemas,
  skillJobOptions,
} from '@skillrun/core';
import type { QueueRegistry } from './queue-registry';
import { redisDeadline } from './redis-deadline';
import type { SkillDirectory } from './skill-directory';

export interface InvocationServiceDeps {
  directory: SkillDirectory;
  store: ExecutionStore;
  queues: QueueRegistry;
  schemas: SkillSchemas;
  redisTimeoutMs: number;
  retryBackoffMs: number;
}

const requestValidator = new SchemaValidator(InvocationRequest, 'invocation request');

/**
 * Accepts an invocation: everything is validated before anything is stored, then the execution
 * record is written (so status is readable the instant 202 is answered) and the job enqueued.
 */
export class InvocationService {
  constructor(private readonly deps: InvocationServiceDeps) {}

  async invoke(skillId: string, body: unknown, traceparentTraceId: string | undefined): Promise<Execution> {
    const request = requestValidator.parse(body);
    if (request.skill_id !== skillId) {
      throw new SkillError(
        'INVALID_INPUT',
        `skill_id "${request.skill_id}" does not match the URL's "${skillId}"`,
        {
          details: [{ path: '/skill_id', message: `must be "${skillId}"` }],
        },
      );
    }
    const skill = await this.redis(() => this.deps.directory.get(skillId));
    if (!skill) throw new SkillError('SKILL_NOT_FOUND', `No live worker hosts a skill with id "${skillId}"`);
    const inputs = this.deps.schemas.assert(skill.input, request.inputs, 'inputs', '/inputs');

    const payload: JobPayload = {
      v: 1,
      execution_id: randomUUID(),
      skill_id: skill.name,
      skill_version: skill.version,
      inputs,
      caller: { id: request.caller.id, type: request.caller.type },
      trace_id: request.context?.trace_id ?? traceparentTraceId ?? newTraceId(),
      priority: request.context?.priority ?? 'normal',
      ...(request.context?.timeout_ms === undefined ? {} : { timeout_ms: request.context.timeout_ms }),
    };
    const options = skillJobOptions({
      executionId: payload.execution_id,
      priority: payload.priority,
      skill,
      retryBackoffMs: this.deps.retryBackoffMs,
    });
    // One round trip: both go down the same connection, so Redis stores the record before the job.
    const record = this.deps.store.create({
      executionId: payload.execution_id,
      skillId: payload.skill_id,
      skillVersion: payload.skill_version,
      caller: payload.caller,
      traceId: payload.trace_id,
      priority: payload.priority,
      maxAttempts: skill.retry + 1,
      createdAt: new Date().toISOString(),
    });
    const job = this.deps.queues.for(skill.name).add(skill.name, payload, options);
    try {
      const [execution] = await this.redis(() => Promise.all([record, job]));
      return execution;
    } catch (error) {
      await this.forget(skill.name, payload.execution_id);
      throw error;
    }
  }

  /** Best effort after a failed enqueue: no record without a job, no job without a record. */
  private async forget(skillId: string, executionId: string): Promise<void> {
    await Promise.allSettled([
      this.deps.store.discard(executionId),
      this.deps.queues.for(skillId).remove(executionId),
    ]);
  }

  /** The execution, if it exists and belongs to this skill. */
  async find(skillId: string, executionId: string): Promise<Execution> {
    const execution = await this.redis(() => this.deps.store.get(executionId));
    if (!execution || execution.skill_id !== skillId) {
      throw new SkillError('EXECUTION_NOT_FOUND', `No execution "${executionId}" of skill "${skillId}"`);
    }
    return execution;
  }

  private redis<T>(operation: () => Promise<T>): Promise<T> {
    return redisDeadline(operation, this.deps.redisTimeoutMs);
  }
}
