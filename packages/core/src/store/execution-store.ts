import type { Redis } from 'ioredis';
import type { ErrorBody } from '../schemas/error-body';
import type { Execution, ExecutionStatus, ParentLink, TerminalStatus } from '../schemas/execution';
import {
  type StepEntry,
  stepEntriesOf,
  stepSummary,
  toExecution,
  type UsageIncrement,
  usageFields,
  usageIncrements,
} from './execution-record';
import type { RedisKeys } from './redis-keys';

/** Lua: the execution under KEYS[1] leaves the concurrency quotas its record lists (in-flight-slots.ts). */
const RELEASE_SLOTS = `
local function releaseSlots()
  local slots = redis.call('HGET', KEYS[1], 'slots')
  if not slots then return end
  local id = redis.call('HGET', KEYS[1], 'execution_id')
  for _, key in ipairs(cjson.decode(slots)) do redis.call('ZREM', key, id) end
end
`;

/**
 * Moves an execution forward, never backwards: accepted (0) → running (1) → a terminal state (2),
 * and nothing changes a terminal state. ARGV: new status, ttl ms, started_at (set once, may be
 * empty), then field/value pairs. Returns 1 when applied, 0 when the record is missing, -1 when
 * the move would go backwards. A terminal state frees the execution's concurrency slots.
 */
const TRANSITION = `${RELEASE_SLOTS}
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return 0 end
local rank = { accepted = 0, running = 1, completed = 2, failed = 2, timeout = 2 }
if rank[current] == 2 or rank[ARGV[1]] < rank[current] then return -1 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], unpack(ARGV, 4))
if ARGV[3] ~= '' then redis.call('HSETNX', KEYS[1], 'started_at', ARGV[3]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if rank[ARGV[1]] == 2 then releaseSlots() end
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

/** Creates a record and its TTL in one step (a script, not MULTI: no pipeline to build per call). */
const CREATE = `
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
`;

export type TransitionResult = 'applied' | 'missing' | 'refused';

interface StoreScripts {
  skillrunIncrement(key: string, ...fieldValues: string[]): Promise<number>;
  skillrunAttemptDeadline(key: string, attempt: number, proposedMs: number): Promise<number>;
  skillrunCreate(key: string, ttlSeconds: number, ...fieldValues: string[]): Promise<number>;
  skillrunTransition(
    key: string,
    status: string,
    ttlMs: number,
    startedAt: string,
    ...pairs: string[]
  ): Promise<number>;
}

export interface NewExecution {
  executionId: string;
  skillId: string;
  skillVersion: string;
  requestedVersion?: string;
  caller: { id: string; type: string };
  traceId: string;
  priority: Execution['priority'];
  maxAttempts: number;
  createdAt: string;
  parent?: ParentLink;
  /** The authenticated caller it belongs to; an anonymous execution has none. */
  owner?: string;
  /** The concurrency quotas (in-flight sets) it holds a slot in until it ends. */
  slots?: string[];
}

/** Execution records in Redis, one HASH per execution under its own key, with a retention TTL. */
export class ExecutionStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
  ) {
    redis.defineCommand('skillrunTransition', { numberOfKeys: 1, lua: TRANSITION });
    redis.defineCommand('skillrunCreate', { numberOfKeys: 1, lua: CREATE });
    redis.defineCommand('skillrunIncrement', { numberOfKeys: 1, lua: INCREMENT });
    redis.defineCommand('skillrunAttemptDeadline', { numberOfKeys: 1, lua: ATTEMPT_DEADLINE });
  }

  private get scripts(): StoreScripts {
    return this.redis as unknown as StoreScripts;
  }

  async create(execution: NewExecution): Promise<Execution> {
    const fields: Record<string, string> = {
      execution_id: execution.executionId,
      skill_id: execution.skillId,
      skill_version: execution.skillVersion,
      ...(execution.requestedVersion === undefined ? {} : { requested_version: execution.requestedVersion }),
      status: 'accepted',
      attempts: '0',
      max_attempts: String(execution.maxAttempts),
      trace_id: execution.traceId,
      priority: execution.priority,
      caller_id: execution.caller.id,
      caller_type: execution.caller.type,
      created_at: execution.createdAt,
      updated_at: execution.createdAt,
      ...(execution.parent
        ? { parent_execution_id: execution.parent.execution_id, parent_step: execution.parent.step }
        : {}),
      ...(execution.owner === undefined ? {} : { owner_id: execution.owner }),
      ...(execution.slots?.length ? { slots: JSON.stringify(execution.slots) } : {}),
    };
    const pairs = Object.entries(fields).flat();
    await this.scripts.skillrunCreate(this.keys.execution(execution.executionId), this.ttlSeconds, ...pairs);
    return toExecution(fields) as Execution;
  }

  /** Removes a record whose job could not be enqueued, so no execution is left dangling. */
  async discard(executionId: string): Promise<void> {
    await this.redis.del(this.keys.execution(executionId));
  }

  /** The execution as the protocol shows it; a composite's steps carry their executions' statuses. */
  async get(executionId: string): Promise<Execution | null> {
    return (await this.read(executionId))?.execution ?? null;
  }

  /** The execution and who it belongs to (null for an anonymous one), in one read. */
  async read(executionId: string): Promise<{ execution: Execution; owner: string | null } | null> {
    const fields = await this.redis.hgetall(this.keys.execution(executionId));
    const entries = stepEntriesOf(fields);
    const statuses = await Promise.all(
      entries.map((entry) =>
        'execution_id' in entry ? this.redis.hget(this.keys.execution(entry.execution_id), 'status') : null,
      ),
    );
    const steps = entries.map((entry, index) => stepSummary(entry, statuses[index]));
    const execution = toExecution(fields, steps.length > 0 ? steps : undefined);
    return execution && { execution, owner: fields.owner_id ?? null };
  }

  /** A composite's steps so far, as its record keeps them. */
  async stepEntries(executionId: string): Promise<StepEntry[]> {
    const steps = await this.redis.hget(this.keys.execution(executionId), 'steps');
    return stepEntriesOf(steps === null ? {} : { steps });
  }

  /** Replaces a running composite's steps; refused once the execution is final. */
  setSteps(executionId: string, entries: StepEntry[], at: string): Promise<TransitionResult> {
    return this.transition(executionId, 'running', '', { steps: JSON.stringify(entries), updated_at: at });
  }

  async addUsage(executionId: string, increments: UsageIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    await this.scripts.skillrunIncrement(
      this.keys.execution(executionId),
      ...increments.flatMap((increment) => usageFields(increment)),
    );
  }

  /** Per model, the tokens an execution's record says it spent. */
  async usageIncrements(executionId: string): Promise<UsageIncrement[]> {
    return usageIncrements(await this.redis.hgetall(this.keys.execution(executionId)));
  }

  /** The deadline of this attempt of a composite: `proposedMs` the first time, the same one after. */
  attemptDeadline(executionId: string, attempt: number, proposedMs: number): Promise<number> {
    return this.scripts.skillrunAttemptDeadline(this.keys.execution(executionId), attempt, proposedMs);
  }

  /** An attempt starts: status running, attempts counted, started_at set on the first one. */
  startAttempt(executionId: string, attempt: number, at: string): Promise<TransitionResult> {
    return this.transition(executionId, 'running', at, { attempts: attempt, updated_at: at });
  }

  progress(executionId: string, progress: number, at: string): Promise<TransitionResult> {
    return this.transition(executionId, 'running', '', { progress, updated_at: at });
  }

  complete(executionId: string, output: unknown, at: string): Promise<TransitionResult> {
    return this.transition(executionId, 'completed', '', {
      output: JSON.stringify(output ?? null),
      updated_at: at,
      completed_at: at,
    });
  }

  fail(executionId: string, status: Exclude<TerminalStatus, 'completed'>, error: ErrorBody, at: string) {
    return this.transition(executionId, status, '', {
      error: JSON.stringify(error),
      updated_at: at,
      completed_at: at,
    });
  }

  private async transition(
    executionId: string,
    status: ExecutionStatus,
    startedAt: string,
    fields: Record<string, string | number>,
  ): Promise<TransitionResult> {
    const pairs = Object.entries(fields).flatMap(([field, value]) => [field, String(value)]);
    const result = await (
      this.redis as unknown as { skillrunTransition(...args: unknown[]): Promise<number> }
    ).skillrunTransition(
      this.keys.execution(executionId),
      status,
      this.ttlSeconds * 1000,
      startedAt,
      ...pairs,
    );
    return result === 1 ? 'applied' : result === 0 ? 'missing' : 'refused';
  }
}
