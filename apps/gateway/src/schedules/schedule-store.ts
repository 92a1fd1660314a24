import type {
  ErrorBody,
  InvocationRequest,
  NewSchedule,
  ScheduleOverlap,
  ScheduleRunOutcome,
} from '@skillrun/core';
import { execAll, type RedisKeys, type RedisScript, redisScript } from '@skillrun/core/data';
import type { Redis } from 'ioredis';
import CREATE from './create-schedule.lua';
import PLACE_RUNS from './place-schedule-runs.lua';
import RECORD_RUN from './record-schedule-run.lua';
import type { ScheduleCredential } from './schedule-credential';
import UPDATE from './update-schedule.lua';

/**
 * A schedule as it is kept: what each run invokes and when (the fields POST /schedules takes, typed
 * once in core; the inputs as an object, which core's type leaves as `{}`), and as whom.
 */
export interface StoredSchedule
  extends Pick<NewSchedule, 'skill_id' | 'version' | 'cron' | 'every_ms' | 'timezone'> {
  id: string;
  /** The caller that made it: who may read and change it, and whose executions its runs are. */
  owner: string;
  credential: ScheduleCredential;
  inputs: Record<string, unknown>;
  context?: InvocationRequest['context'];
  caller: { id: string; type: InvocationRequest['caller']['type'] };
  overlap: ScheduleOverlap;
  paused: boolean;
  /** Epoch ms. */
  created_at: number;
  updated_at: number;
}

/**
 * A schedule, the execution of its latest launched run (what overlap `skip` waits for), and the
 * vshard its runs go to, once one is kept (REDIS_SHARDS above 1: placeRuns).
 */
export interface FoundSchedule {
  schedule: StoredSchedule;
  lastExecutionId: string | undefined;
  vshard: number | undefined;
}

/** What one due time came to (times in epoch ms). */
export interface StoredRun {
  due_at: number;
  outcome: ScheduleRunOutcome;
  execution_id?: string;
  error?: ErrorBody;
  recorded_at: number;
}

/** How many runs a schedule keeps, the latest. */
export const RUNS_KEPT = 20;

/**
 * Schedules in Redis, under the service's hash tag: one hash each (its definition as JSON, and with
 * REDIS_SHARDS above 1 the vshard its runs go to), listed in the order they were made, everyone's
 * and each owner's (whose size is what an owner has), and each one's latest runs. They live until
 * deleted.
 */
export class ScheduleStore {
  private readonly createScript: RedisScript<number>;
  private readonly updateScript: RedisScript<number>;
  private readonly recordRunScript: RedisScript<number>;
  private readonly placeRunsScript: RedisScript<number>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    this.createScript = redisScript(redis, 'skillrunCreateSchedule', CREATE);
    this.updateScript = redisScript(redis, 'skillrunUpdateSchedule', UPDATE);
    this.recordRunScript = redisScript(redis, 'skillrunRecordScheduleRun', RECORD_RUN);
    this.placeRunsScript = redisScript(redis, 'skillrunPlaceScheduleRuns', PLACE_RUNS);
  }

  /**
   * Keeps a new schedule, its runs on `vshard` (none at one shard); false when its owner has `most`
   * already.
   */
  async create(schedule: StoredSchedule, most: number, vshard?: number): Promise<boolean> {
    const created = await this.createScript(
      [
        this.keys.schedules.schedule(schedule.id),
        this.keys.schedules.schedules(),
        this.keys.schedules.schedules(schedule.owner),
      ],
      [JSON.stringify(schedule), memberOf(schedule), most, ...(vshard === undefined ? [] : [vshard])],
    );
    return created === 1;
  }

  async get(id: string): Promise<FoundSchedule | null> {
    const [definition, last, vshard] = await this.redis.hmget(
      this.keys.schedules.schedule(id),
      'definition',
      'last_execution_id',
      'vshard',
    );
    if (!definition) return null;
    return {
      schedule: JSON.parse(definition) as StoredSchedule,
      lastExecutionId: last ?? undefined,
      vshard: vshard === null ? undefined : Number(vshard),
    };
  }

  /**
   * The vshard a schedule's runs go to: the one it keeps while it is among `active`, else `vshard`,
   * kept from now on (place-schedule-runs.lua); null when it was deleted.
   */
  async placeRuns(id: string, vshard: number, active: number[]): Promise<number | null> {
    const placed = await this.placeRunsScript([this.keys.schedules.schedule(id)], [vshard, ...active]);
    return placed < 0 ? null : placed;
  }

  /** Writes a changed schedule; false when it was deleted meanwhile. */
  async update(schedule: StoredSchedule): Promise<boolean> {
    return (
      (await this.updateScript([this.keys.schedules.schedule(schedule.id)], [JSON.stringify(schedule)])) === 1
    );
  }

  async remove(schedule: StoredSchedule): Promise<void> {
    const member = memberOf(schedule);
    await execAll(
      this.redis
        .multi()
        .del(this.keys.schedules.schedule(schedule.id), this.keys.schedules.scheduleRuns(schedule.id))
        .zrem(this.keys.schedules.schedules(), member)
        .zrem(this.keys.schedules.schedules(schedule.owner), member),
    );
  }

  /**
   * Up to `count` schedules, everyone's or one owner's, in the order they were made, from just after
   * the position `after`; each with its own position (where a listing that stops at it goes on
   * from), and `next`, where to go on from after them all: null once none is left.
   */
  async list(
    owner: string | undefined,
    after: string | undefined,
    count: number,
  ): Promise<{ entries: Array<{ schedule: StoredSchedule; position: string }>; next: string | null }> {
    const members = await this.redis.zrangebylex(
      this.keys.schedules.schedules(owner),
      after === undefined ? '-' : `(${after}`,
      '+',
      'LIMIT',
      0,
      count,
    );
    if (members.length === 0) return { entries: [], next: null };
    const pipeline = this.redis.pipeline();
    for (const member of members) pipeline.hget(this.keys.schedules.schedule(idOf(member)), 'definition');
    const definitions = (await execAll(pipeline)) as (string | null)[];
    // A schedule deleted between the two reads is passed over.
    const entries = members.flatMap((position, i) => {
      const definition = definitions[i];
      return definition ? [{ schedule: JSON.parse(definition) as StoredSchedule, position }] : [];
    });
    return { entries, next: members.length < count ? null : (members.at(-1) ?? null) };
  }

  /** Whether the due time's run is recorded already. */
  async hasRun(id: string, dueAt: number): Promise<boolean> {
    return (await this.redis.zcount(this.keys.schedules.scheduleRuns(id), dueAt, dueAt)) > 0;
  }

  /** Records a due time's run, once; false when it was recorded already or the schedule is gone. */
  async recordRun(id: string, run: StoredRun): Promise<boolean> {
    const recorded = await this.recordRunScript(
      [this.keys.schedules.schedule(id), this.keys.schedules.scheduleRuns(id)],
      [
        run.due_at,
        JSON.stringify(run),
        RUNS_KEPT,
        run.outcome === 'launched' ? (run.execution_id ?? '') : '',
      ],
    );
    return recorded === 1;
  }

  /** The latest runs, newest first. */
  async runs(id: string): Promise<StoredRun[]> {
    const runs = await this.redis.zrevrange(this.keys.schedules.scheduleRuns(id), 0, RUNS_KEPT - 1);
    return runs.map((run) => JSON.parse(run) as StoredRun);
  }
}

/** A schedule's entry in the lists: ordered by when it was made, then by id. */
function memberOf(schedule: StoredSchedule): string {
  return `${String(schedule.created_at).padStart(13, '0')}:${schedule.id}`;
}

function idOf(member: string): string {
  return member.slice(member.indexOf(':') + 1);
}
