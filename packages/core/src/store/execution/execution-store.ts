import type { Redis } from 'ioredis';
import { remoteQueueName, skillQueueName } from '../../queue/skill-queue';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import type { ErrorBody } from '../../schemas/error-body';
import {
  type Execution,
  type ExecutionStatus,
  TERMINAL_STATUSES,
  type TerminalStatus,
} from '../../schemas/execution';
import type { Priority } from '../../schemas/invocation-request';
import type { JobPayload } from '../../schemas/job-payload';
import { ExecutionIndex } from './execution-index';
import {
  attemptErrorField,
  type LiveJob,
  type RecordExtras,
  recordFields,
  type StepEntry,
  stepEntriesOf,
  stepSummary,
  toExecution,
  type UsageIncrement,
  usageFields,
  usageIncrements,
} from './execution-record';
import { isPastQueueTimeout, neverStartedError } from './never-started';
import type { RedisKeys } from '../redis-keys';
import {
  TRANSITION_LUA,
  type TransitionCall,
  type TransitionResult,
  transitionResult,
} from './transition-script';

/**
 * A record's fields (a flat field/value list) and its outcome STRING (KEYS[2]), in one call. With a
 * watcher's id in ARGV[1] it also adds that watcher to an existing record's `watched` first: from
 * then on its changes are announced in that watcher's inbox (TRANSITION), and only then, so that
 * the executions nobody waits for (most of them) cost Redis no PUBLISH. The watcher is subscribed
 * to its inbox before this read, so no change is missed: one before the mark is in what it reads,
 * one after it is announced.
 */
const READ = `
if ARGV[1] ~= '' and redis.call('EXISTS', KEYS[1]) == 1 then
  local watched = redis.call('HGET', KEYS[1], 'watched')
  if not watched then
    redis.call('HSET', KEYS[1], 'watched', ARGV[1])
  elseif not string.find(' ' .. watched .. ' ', ' ' .. ARGV[1] .. ' ', 1, true) then
    redis.call('HSET', KEYS[1], 'watched', watched .. ' ' .. ARGV[1])
  end
end
return { redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[2]) }
`;

/**
 * Has every later change of a record that has not ended appended to the notifications stream (a
 * caller's event stream follows it from now on). Returns 1 when the record is there and not final.
 */
const FOLLOW = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'completed' or status == 'failed' or status == 'timeout' or status == 'canceled' then
  return 0
end
redis.call('HSET', KEYS[1], 'hook', 'change')
return 1
`;

/** Adds to counters of a record that still exists (never recreates an expired one without a TTL). */
const INCREMENT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
`;

/**
 * The deadline of a composite's attempt, fixed when the attempt first runs and kept while it waits
 * for its steps. ARGV: attempt, proposed deadline (epoch ms). Returns the deadline in force.
 */
const ATTEMPT_DEADLINE = `
if redis.call('HGET', KEYS[1], 'deadline_attempt') == ARGV[1] then
  return tonumber(redis.call('HGET', KEYS[1], 'deadline_ms'))
end
redis.call('HSET', KEYS[1], 'deadline_attempt', ARGV[1], 'deadline_ms', ARGV[2])
return tonumber(ARGV[2])
`;

/** How far an attempt's call to a remote provider has got: its execution there, its polls, and failed ones in a row. */
export interface RemoteState {
  attempt: number;
  executionId?: string;
  polls: number;
  failures: number;
}

/** How an attempt that ends an execution went. */
export interface AttemptEnd {
  /** The attempt's number: 1 for the first. */
  attempt: number;
  /** Epoch ms at which it started (the execution's start, unless an earlier attempt recorded one). */
  startedAt: number;
  /** The last progress the skill reported, not yet written. */
  progress?: number;
  /** The worker that ran it (WORKER_ID). */
  workerId?: string;
}

const FINAL = new Set<string>(TERMINAL_STATUSES);

/** Redis' default hash-max-listpack-value: a longer value turns a hash into a table. */
const COMPACT_VALUE_BYTES = 64;

/**
 * Execution records in Redis, one HASH per execution under its own key. A record is kept while its
 * execution is not final and for the retention period (`ttlSeconds`) after it ends. Times come from
 * `clock` (epoch ms).
 */
export class ExecutionStore {
  private readonly transitionScript: RedisScript<number>;
  private readonly incrementScript: RedisScript<number>;
  private readonly attemptDeadlineScript: RedisScript<number>;
  private readonly readScript: RedisScript<[string[], string | null]>;
  private readonly followScript: RedisScript<number>;
  /** The executions of each hour, for listings. */
  readonly index: ExecutionIndex;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.transitionScript = redisScript(redis, 'skillrunTransition', TRANSITION_LUA);
    this.incrementScript = redisScript(redis, 'skillrunIncrement', INCREMENT);
    this.attemptDeadlineScript = redisScript(redis, 'skillrunAttemptDeadline', ATTEMPT_DEADLINE);
    this.readScript = redisScript(redis, 'skillrunRead', READ);
    this.followScript = redisScript(redis, 'skillrunFollow', FOLLOW);
    this.index = new ExecutionIndex(redis, keys, ttlSeconds);
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

  /** From now on every change of the execution is a notification; false when it has ended or is gone. */
  async follow(executionId: string): Promise<boolean> {
    return (await this.followScript([this.keys.execution(executionId)], [])) === 1;
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
   * The execution and who it belongs to (null for an anonymous one). Until it is final, BullMQ's job
   * says whether it has started; a job that is gone by then has ended, so the record is read again
   * (the worker writes the outcome before BullMQ removes the job): status never moves backwards.
   * `watcher`: the id of a watcher subscribed to its inbox, which wants the changes announced there.
   */
  async read(
    executionId: string,
    options: { watcher?: string } = {},
  ): Promise<{ execution: Execution; owner: string | null } | null> {
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
    return this.readableOf(executionId, fields, live);
  }

  /**
   * The execution an announcement in a watcher's inbox shows (see TRANSITION; `message` is what
   * follows its execution id's line): null when it says only the new status, the record as it ended
   * when it says the end, read without asking Redis again.
   */
  async announced(
    executionId: string,
    message: string,
  ): Promise<{ execution: Execution; owner: string | null } | null> {
    const record = message.indexOf('\n');
    const outcome = message.indexOf('\n', record + 1);
    if (record === -1 || outcome === -1) return null;
    const flat = JSON.parse(message.slice(record + 1, outcome)) as string[];
    const outcomeApart = message.slice(outcome + 1);
    return this.readableOf(executionId, fieldsOf(flat, outcomeApart === '' ? null : outcomeApart), {});
  }

  private async readableOf(executionId: string, fields: Record<string, string>, live: LiveJob) {
    const steps = await this.stepsOf(fields);
    const execution = toExecution(executionId, fields, live, steps);
    return execution && { execution, owner: fields.owner_id ?? null };
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
    await this.fail(executionId, 'timeout', neverStartedError(createdAt, queueTimeout, now));
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

  /** A composite's steps so far, as its record keeps them. */
  async stepEntries(executionId: string): Promise<StepEntry[]> {
    const steps = await this.redis.hget(this.keys.execution(executionId), 'steps');
    return stepEntriesOf(steps === null ? {} : { steps });
  }

  /**
   * Replaces a running composite's steps; refused once the execution is final. `startedAt`: when the
   * run that launched them started (the execution's start, the first time).
   */
  setSteps(executionId: string, entries: StepEntry[], startedAt: number): Promise<TransitionResult> {
    return this.transition(executionId, 'running', startedAt, { steps: JSON.stringify(entries) });
  }

  async addUsage(executionId: string, increments: UsageIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    await this.incrementScript(
      [this.keys.execution(executionId)],
      increments.flatMap((increment) => usageFields(increment)),
    );
  }

  /** Per model, the tokens an execution's record says it spent. */
  async usageIncrements(executionId: string): Promise<UsageIncrement[]> {
    return usageIncrements(await this.redis.hgetall(this.keys.execution(executionId)));
  }

  /** Where the call to a remote provider stands (remote-body.ts), as setRemote last wrote it. */
  async remoteState(executionId: string): Promise<RemoteState> {
    const [attempt, id, polls, failures] = await this.redis.hmget(
      this.keys.execution(executionId),
      'remote_attempt',
      'remote_execution_id',
      'remote_polls',
      'remote_failures',
    );
    return {
      attempt: Number(attempt ?? 0),
      ...(id ? { executionId: id } : {}),
      polls: Number(polls ?? 0),
      failures: Number(failures ?? 0),
    };
  }

  /** Notes where the call to the remote provider stands; refused once the execution has ended. */
  setRemote(executionId: string, state: RemoteState, startedAt: number): Promise<TransitionResult> {
    return this.transition(executionId, 'running', startedAt, {
      remote_attempt: state.attempt,
      remote_execution_id: state.executionId ?? '',
      remote_polls: state.polls,
      remote_failures: state.failures,
    });
  }

  /** The attempt whose deadline the record keeps (attemptDeadline), if any. */
  async deadlineAttempt(executionId: string): Promise<number | undefined> {
    const attempt = await this.redis.hget(this.keys.execution(executionId), 'deadline_attempt');
    return attempt === null ? undefined : Number(attempt);
  }

  /** The deadline of this attempt of a composite: `proposedMs` the first time, the same one after. */
  attemptDeadline(executionId: string, attempt: number, proposedMs: number): Promise<number> {
    return this.attemptDeadlineScript([this.keys.execution(executionId)], [attempt, proposedMs]);
  }

  /**
   * An attempt failed and another follows: the record keeps the count, the first start (the
   * execution runs on, so that BullMQ's job for the next attempt is not its only trace) and, in the
   * same write, this attempt's error (the execution's `error` is only ever its last attempt's).
   */
  retrying(
    executionId: string,
    attempt: number,
    startedAt: number,
    error: ErrorBody,
    workerId: string,
  ): Promise<TransitionResult> {
    const [field, value] = attemptErrorField(attempt, error, this.clock(), workerId);
    return this.transition(executionId, 'running', startedAt, { attempts: attempt, [field]: value });
  }

  progress(executionId: string, progress: number): Promise<TransitionResult> {
    return this.transition(executionId, 'running', undefined, { progress });
  }

  /** `outputJson`: the output as JSON (the worker serializes it once, to bound its size). */
  complete(executionId: string, outputJson: string, end: AttemptEnd): Promise<TransitionResult> {
    return this.send(this.completeCall(executionId, outputJson, end));
  }

  /** complete's write, for the caller to send (with BullMQ's completion of the job, in the worker). */
  completeCall(executionId: string, outputJson: string, end: AttemptEnd): TransitionCall {
    return this.endCall(executionId, 'completed', 'output', outputJson, end);
  }

  /**
   * Ends an execution that has not ended as `canceled` (a cancel request; the worker running it, if
   * any, is told apart). 'refused' when it has ended already: a terminal status never changes.
   */
  cancel(executionId: string, error: ErrorBody): Promise<TransitionResult> {
    return this.send(this.endCall(executionId, 'canceled', 'error', JSON.stringify(error), undefined));
  }

  /** `end` is absent when the execution ends without an attempt of its own (a sweep, a stall). */
  fail(
    executionId: string,
    status: Exclude<TerminalStatus, 'completed' | 'canceled'>,
    error: ErrorBody,
    end?: AttemptEnd,
  ): Promise<TransitionResult> {
    return this.send(this.failCall(executionId, status, error, end));
  }

  /** fail's write, for the caller to send (with BullMQ's failure of the job, in the worker). */
  failCall(
    executionId: string,
    status: Exclude<TerminalStatus, 'completed' | 'canceled'>,
    error: ErrorBody,
    end?: AttemptEnd,
  ): TransitionCall {
    return this.endCall(executionId, status, 'error', JSON.stringify(error), end);
  }

  /** Sends a transition built here (completeCall, failCall) on this store's connection. */
  async send(call: TransitionCall): Promise<TransitionResult> {
    return transitionResult(await this.transitionScript(call.keys, call.args));
  }

  /**
   * Ends the execution with its output or error: in the record while short enough for Redis' compact
   * hash encoding (which a single long value would turn into a table several times larger), else in
   * a STRING of its own.
   */
  private endCall(
    executionId: string,
    status: TerminalStatus,
    field: 'output' | 'error',
    outcome: string,
    end: AttemptEnd | undefined,
  ): TransitionCall {
    const apart = Buffer.byteLength(outcome) > COMPACT_VALUE_BYTES;
    return this.transitionCall(
      executionId,
      status,
      end?.startedAt,
      {
        ...(apart ? {} : { [field]: outcome }),
        // updated_at of an ended execution is its completed_at: not stored twice.
        completed_at: this.clock(),
        ...(end ? { attempts: end.attempt } : {}),
        ...(end?.workerId === undefined ? {} : { worker_id: end.workerId }),
        ...(end?.progress === undefined ? {} : { progress: end.progress }),
      },
      apart ? outcome : '',
    );
  }

  private transition(
    executionId: string,
    status: ExecutionStatus,
    startedAt: number | undefined,
    fields: Record<string, string | number>,
  ): Promise<TransitionResult> {
    return this.send(this.transitionCall(executionId, status, startedAt, fields));
  }

  private transitionCall(
    executionId: string,
    status: ExecutionStatus,
    startedAt: number | undefined,
    fields: Record<string, string | number>,
    outcomeApart = '',
  ): TransitionCall {
    const changes = FINAL.has(status) ? fields : { updated_at: this.clock(), ...fields };
    const args = [status, String(this.ttlSeconds * 1000), executionId, String(startedAt ?? ''), outcomeApart];
    // A loop rather than entries().flatMap(): every ending execution comes through here.
    for (const field in changes) args.push(field, String(changes[field]));
    const keys = [
      this.keys.execution(executionId),
      this.keys.watcherInboxes(),
      this.keys.outcome(executionId),
      this.keys.notifications(),
    ];
    return { keys, args };
  }

  /** A composite's steps with each one's status, read from its own record. */
  private async stepsOf(fields: Record<string, string>) {
    const entries = stepEntriesOf(fields);
    if (entries.length === 0) return undefined;
    const steps = await Promise.all(
      entries.map(async (entry) => {
        if (!('execution_id' in entry)) return stepSummary(entry, null);
        return stepSummary(entry, (await this.get(entry.execution_id))?.status);
      }),
    );
    return steps;
  }
}

/** A record's fields from HGETALL's flat list, with its outcome where it was kept apart. */
function fieldsOf(flat: string[], outcome: string | null): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  // The outcome is written with the final status: it only counts once the record says final.
  if (outcome === null || !fields.status || !FINAL.has(fields.status)) return fields;
  return { ...fields, [fields.status === 'completed' ? 'output' : 'error']: outcome };
}

function priorityOf(fields: Record<string, string>): Priority {
  return (fields.priority ?? 'normal') as Priority;
}
