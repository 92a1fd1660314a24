import type { Redis } from 'ioredis';
import { remoteQueueName, skillQueueName } from '../../queue/skill-queue';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import { type Execution, type ExecutionStatus, TERMINAL_STATUSES } from '../../schemas/execution';
import type { Priority } from '../../schemas/invocation-request';
import type { JobPayload } from '../../schemas/job-payload';
import type { RedisKeys } from '../keys/redis-keys';
import type { ExecutionIndex } from './execution-index';
import { dueAtOf, type LiveJob, type RecordExtras, recordFields, toExecution } from './execution-record';
import { stepSummaries } from './execution-steps';
import type { ExecutionTransitions } from './execution-transitions';
import { isPastQueueTimeout, neverStartedError } from './never-started';
import READ from './read-record.lua';

/**
 * What a view of many executions shows of each (ExecutionRecords.brief), and who it belongs to
 * (null for an anonymous one).
 */
export type ExecutionBrief = Pick<Execution, 'execution_id' | 'skill_id' | 'status'> & {
  owner: string | null;
};

/**
 * An execution as the protocol shows it, who it belongs to (null for an anonymous one), and the seq
 * of the last chunk it streamed (0: none; ExecutionChunks).
 */
export interface ReadableExecution {
  execution: Execution;
  owner: string | null;
  chunks: number;
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
    private readonly expired?: (executionId: string) => Promise<void>,
  ) {
    this.readScript = redisScript(redis, 'skillrunRead', READ);
  }

  /**
   * Writes the record of a new execution (one HSET: it gets its retention period when it ends) and
   * lists it in the hour it was created (GET /executions).
   */
  async create(payload: JobPayload, extras: RecordExtras): Promise<Execution> {
    const now = this.clock();
    const id = payload.execution_id;
    // Listed for its approvers (GET /approvals) until decided (approval-decision.lua) or ended: the
    // list is one of its `slots`, which its end leaves.
    const pending = extras.approval ? this.keys.pendingApprovals(this.keys.tagOf(id)) : undefined;
    const fields = recordFields(
      payload,
      pending ? { ...extras, slots: [...(extras.slots ?? []), pending] } : extras,
      now,
    );
    const written: Promise<unknown>[] = [
      this.redis.hset(this.keys.execution(id), fields),
      this.index.add(id, payload.owner, now),
    ];
    if (pending) written.push(this.redis.zadd(pending, now, id));
    await Promise.all(written);
    return toExecution(payload.execution_id, fields) as Execution;
  }

  /** The inputs an execution was started with (null when its record is gone). */
  async inputsOf(executionId: string): Promise<Record<string, unknown> | null> {
    const inputs = await this.redis.hget(this.keys.execution(executionId), 'inputs');
    return inputs === null ? null : (JSON.parse(inputs) as Record<string, unknown>);
  }

  /** The execution's context.concurrency_key, kept for a replay; undefined when it had none. */
  async concurrencyKeyOf(executionId: string): Promise<string | undefined> {
    return (await this.redis.hget(this.keys.execution(executionId), 'concurrency_key')) ?? undefined;
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
      const [processedOn, started, worker] = await this.redis.hmget(
        this.keys.job(queueOf(fields), executionId),
        'processedOn',
        'ats',
        'pb',
      );
      // A job parked for a concurrency slot was taken (BullMQ counted a start) but did not start.
      if ((processedOn === null && started === null) || fields.waiting_for !== undefined)
        fields = await this.expireUnstarted(executionId);
      // Taken and not yet admitted to its concurrency slots, it has not started: its worker, which
      // parks it or runs it next, also ends it if it waited past its queue timeout.
      else if (fields.unadmitted === undefined)
        live = {
          processedOn: Number(processedOn),
          attemptsStarted: Number(started ?? 0) - Number(fields.parks ?? 0),
          ...(worker === null ? {} : { worker }),
        };
    }
    return this.readable(executionId, fields, live);
  }

  /**
   * The execution's status and skill alone, as read() shows them, without the rest of its record
   * (an output may be large): what a view of many executions needs (a batch's). Null when there
   * is no record.
   */
  async brief(executionId: string): Promise<ExecutionBrief | null> {
    const key = this.keys.execution(executionId);
    const [status, skillId, version, priority, remote, queueTimeout, owner, parked, unadmitted] =
      await this.redis.hmget(
        key,
        'status',
        'skill_id',
        'skill_version',
        'priority',
        'remote',
        'queue_timeout_ms',
        'owner_id',
        'waiting_for',
        'unadmitted',
      );
    if (status === null) return null;
    const brief = { execution_id: executionId, skill_id: skillId ?? '', owner: owner ?? null };
    if (status !== 'accepted') return { ...brief, status: status as ExecutionStatus };
    const queue = queueOf({
      ...(skillId === null ? {} : { skill_id: skillId }),
      ...(version === null ? {} : { skill_version: version }),
      ...(priority === null ? {} : { priority }),
      ...(remote === null ? {} : { remote }),
    });
    const [processedOn, started] = await this.redis.hmget(
      this.keys.job(queue, executionId),
      'processedOn',
      'ats',
    );
    // Taken, its job has started unless it waits for a concurrency slot or its admission (as in read()).
    if ((processedOn !== null || started !== null) && parked === null && unadmitted === null)
      return { ...brief, status: 'running' };
    // Not started, or its job gone because it ended meanwhile: the record says which. One past its
    // queue timeout is ended by whoever reads it, as read() does.
    if (queueTimeout !== null) {
      const read = await this.read(executionId);
      return read && { ...brief, status: read.execution.status };
    }
    const now = await this.redis.hget(key, 'status');
    return now === null ? null : { ...brief, status: now as ExecutionStatus };
  }

  /** The execution that fields read from its record show, with its steps' statuses. */
  async readable(
    executionId: string,
    fields: Record<string, string>,
    live: LiveJob = {},
  ): Promise<ReadableExecution | null> {
    const steps = await stepSummaries(fields, (id) => this.get(id));
    const execution = toExecution(executionId, fields, live, steps);
    return execution && { execution, owner: fields.owner_id ?? null, chunks: Number(fields.chunks ?? 0) };
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
   * while no worker is free to notice; a worker that takes its job later finds it ended. The
   * concurrency slots it may hold (given, its job not yet taken) go on at once (`expired`).
   */
  private async expireUnstarted(executionId: string): Promise<Record<string, string>> {
    const fields = await this.fields(executionId);
    const queueTimeout = fields.queue_timeout_ms === undefined ? undefined : Number(fields.queue_timeout_ms);
    const dueAt = dueAtOf(fields);
    const now = this.clock();
    if (fields.status !== 'accepted' || !isPastQueueTimeout(dueAt, queueTimeout, now)) return fields;
    const ended = await this.transitions.fail(
      executionId,
      'timeout',
      neverStartedError(dueAt, queueTimeout, now),
    );
    if (ended === 'applied') await this.expired?.(executionId).catch(() => {});
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

/** The queue an execution's job is in, from its record's fields. */
function queueOf(fields: Record<string, string>): string {
  return fields.remote === undefined
    ? skillQueueName(fields.skill_id ?? '', fields.skill_version ?? '', priorityOf(fields))
    : remoteQueueName(priorityOf(fields));
}
