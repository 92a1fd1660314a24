import type { Redis } from 'ioredis';
import { remoteQueueName, skillQueueName } from '../../queue/skill-queue';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import { type Execution, TERMINAL_STATUSES } from '../../schemas/execution';
import type { Priority } from '../../schemas/invocation-request';
import type { JobPayload } from '../../schemas/job-payload';
import type { RedisKeys } from '../redis-keys';
import type { ExecutionIndex } from './execution-index';
import { type LiveJob, type RecordExtras, recordFields, toExecution } from './execution-record';
import { stepSummaries } from './execution-steps';
import type { ExecutionTransitions } from './execution-transitions';
import { isPastQueueTimeout, neverStartedError } from './never-started';
import READ from './read-record.lua';

/** An execution as the protocol shows it, and who it belongs to (null for an anonymous one). */
export interface ReadableExecution {
  execution: Execution;
  owner: string | null;
}

const FINAL = new Set<string>(TERMINAL_STATUSES);

/**
 * Execution records in Redis, one HASH per execution under its own key: written when an execution
 * is accepted, read as the protocol shows it. Times come from `clock` (epoch ms).
 */
export class ExecutionRecords {
  private readonly readScript: RedisScript<[string[], string | null]>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly index: ExecutionIndex,
    private readonly transitions: ExecutionTransitions,
    private readonly clock: () => number = Date.now,
  ) {
    this.readScript = redisScript(redis, 'skillrunRead', READ);
  }

  /**
   * Writes the record of a new execution (one HSET: it gets its retention period when it ends) and
   * lists it in the hour it was created (GET /executions).
   */
  async create(payload: JobPayload, extras: RecordExtras): Promise<Execution> {
    const now = this.clock();
    const fields = recordFields(payload, extras, now);
    await Promise.all([
      this.redis.hset(this.keys.execution(payload.execution_id), fields),
      this.index.add(payload.execution_id, payload.owner, now),
    ]);
    return toExecution(payload.execution_id, fields) as Execution;
  }

  /** The inputs an execution was started with (null when its record is gone). */
  async inputsOf(executionId: string): Promise<Record<string, unknown> | null> {
    const inputs = await this.redis.hget(this.keys.execution(executionId), 'inputs');
    return inputs === null ? null : (JSON.parse(inputs) as Record<string, unknown>);
  }

  /** Removes a record whose job could not be enqueued, so no execution is left dangling. */
  async discard(executionId: string): Promise<void> {
    await this.redis.del(this.keys.execution(executionId));
  }

  /** The execution as the protocol shows it; a composite's steps carry their executions' statuses. */
  async get(executionId: string): Promise<Execution | null> {
    return (await this.read(executionId))?.execution ?? null;
  }

  /**
   * The execution and who it belongs to. Until it is final, BullMQ's job says whether it has
   * started; a job that is gone by then has ended, so the record is read again (the worker writes
   * the outcome before BullMQ removes the job): status never moves backwards.
   * `watcher`: the id of a watcher subscribed to its inbox, which wants the changes announced there
   * (read-record.lua).
   */
  async read(executionId: string, options: { watcher?: string } = {}): Promise<ReadableExecution | null> {
    let fields = await this.fields(executionId, options.watcher);
    let live: LiveJob = {};
    if (fields.status && !FINAL.has(fields.status)) {
      const queue =
        fields.remote === undefined
          ? skillQueueName(fields.skill_id ?? '', fields.skill_version ?? '', priorityOf(fields))
          : remoteQueueName(priorityOf(fields));
      const [processedOn, started, worker] = await this.redis.hmget(
        this.keys.job(queue, executionId),
        'processedOn',
        'ats',
        'pb',
      );
      if (processedOn === null && started === null) fields = await this.expireUnstarted(executionId);
      else
        live = {
          processedOn: Number(processedOn),
          attemptsStarted: Number(started ?? 0),
          ...(worker === null ? {} : { worker }),
        };
    }
    return this.readable(executionId, fields, live);
  }

  /** The execution that fields read from its record show, with its steps' statuses. */
  async readable(
    executionId: string,
    fields: Record<string, string>,
    live: LiveJob = {},
  ): Promise<ReadableExecution | null> {
    const steps = await stepSummaries(fields, (id) => this.get(id));
    const execution = toExecution(executionId, fields, live, steps);
    return execution && { execution, owner: fields.owner_id ?? null };
  }

  /**
   * Whether the record has moved past `accepted` (a retry, progress, an end); false when there is no
   * record. A first attempt that is running and has reported nothing does not show here.
   */
  async hasStarted(executionId: string): Promise<boolean> {
    const status = await this.redis.hget(this.keys.execution(executionId), 'status');
    return status !== null && status !== 'accepted';
  }

  /** Whether the execution has ended (or its record is gone). */
  async isFinal(executionId: string): Promise<boolean> {
    const status = await this.redis.hget(this.keys.execution(executionId), 'status');
    return status === null || FINAL.has(status);
  }

  /**
   * The record read again when its job has not started (or is gone). One that waited past its
   * queue timeout is ended as a timeout here, by whoever reads it, so that its status is true even
   * while no worker is free to notice; a worker that takes its job later finds it ended.
   */
  private async expireUnstarted(executionId: string): Promise<Record<string, string>> {
    const fields = await this.fields(executionId);
    const queueTimeout = fields.queue_timeout_ms === undefined ? undefined : Number(fields.queue_timeout_ms);
    const createdAt = Number(fields.created_at);
    const now = this.clock();
    if (fields.status !== 'accepted' || !isPastQueueTimeout(createdAt, queueTimeout, now)) return fields;
    await this.transitions.fail(executionId, 'timeout', neverStartedError(createdAt, queueTimeout, now));
    return this.fields(executionId);
  }

  /**
   * The record's fields, with its outcome where it was kept apart, in one call (the outcome is
   * written with the final status, so it only counts once the record says final).
   */
  private async fields(executionId: string, watcher = ''): Promise<Record<string, string>> {
    const [flat, outcome] = await this.readScript(
      [this.keys.execution(executionId), this.keys.outcome(executionId)],
      [watcher],
    );
    return fieldsOf(flat, outcome);
  }
}

/** A record's fields from HGETALL's flat list, with its outcome where it was kept apart. */
export function fieldsOf(flat: string[], outcome: string | null): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  // The outcome is written with the final status: it only counts once the record says final.
  if (outcome === null || !fields.status || !FINAL.has(fields.status)) return fields;
  return { ...fields, [fields.status === 'completed' ? 'output' : 'error']: outcome };
}

function priorityOf(fields: Record<string, string>): Priority {
  return (fields.priority ?? 'normal') as Priority;
}
