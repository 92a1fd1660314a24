import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import type { Priority } from '../../schemas/invocation-request';
import type { ConcurrencySettings } from '../../schemas/skill-definition';
import type { RedisKeys } from '../keys/redis-keys';
import ADMIT from './admit-execution.lua';
import SLOTS from './flow-slots.lua';
import RELEASE from './release-slots.lua';

/** An execution of a skill with concurrency limits, as its worker takes its job. */
export interface GatedExecution {
  executionId: string;
  skillId: string;
  /** Its context.concurrency_key, if any. */
  key?: string;
  limits: ConcurrencySettings;
  /** The start its worker took of the skill's rate limit, given back if it is parked. */
  rateStart?: string;
}

/** A parked execution given its slots: its job is to be promoted, on the queue these name. */
export interface GrantedExecution {
  executionId: string;
  version: string;
  priority: Priority;
}

export interface Admission {
  /** `run`: it holds its slots; `parked`: it waits for one; `ended`: it has ended, nothing to run. */
  verdict: 'run' | 'parked' | 'ended';
  /** How many times its job has been parked, each of which BullMQ counted as a start. */
  parks: number;
  /** Others given their slots meanwhile, whose jobs are to be promoted. */
  granted: GrantedExecution[];
}

/**
 * A skill's concurrency limits (skill.json `concurrency`) across every worker, version and
 * priority, in Redis: at most `limit` executions hold a slot at once, and `per_key` of each
 * concurrency key. A worker asks as it takes a job (admit); one over a limit is parked, in line
 * for its key, and given its slots as others end (release), keys taking turns (flow-slots.lua).
 * Whether a skill is gated is the caller's to know: `isGated`. Its gated executions are on its home
 * vshard (ShardMap.home), with its flow keys: the scripts read and write their records.
 */
export class ConcurrencyGate {
  private readonly admitScript: RedisScript<string[]>;
  private readonly releaseScript: RedisScript<string[]>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly clock: () => number = Date.now,
  ) {
    this.admitScript = redisScript(redis, 'skillrunFlowAdmit', `${SLOTS}\n${ADMIT}`);
    this.releaseScript = redisScript(redis, 'skillrunFlowRelease', `${SLOTS}\n${RELEASE}`);
  }

  async admit(execution: GatedExecution): Promise<Admission> {
    const { executionId, skillId, key, limits, rateStart } = execution;
    const [verdict, parks, ...granted] = await this.admitScript(
      [this.keys.execution(executionId), this.keys.flow.rateStarts(skillId)],
      [...this.common(skillId, gateOf(key, limits)), executionId, rateStart ?? ''],
    );
    return {
      verdict: verdict as Admission['verdict'],
      parks: Number(parks),
      granted: grantedOf(granted),
    };
  }

  /** After an execution of `key` ended: the parked executions given the slots it freed. */
  async release(skillId: string, key: string | undefined, limits: ConcurrencySettings) {
    return this.releaseGate(skillId, gateOf(key, limits));
  }

  /**
   * After an execution ended, by whatever process (a gateway's cancel, a reader past its queue
   * timeout): the parked executions given the slots it freed, if it ever held any, from what its
   * record says of its skill's limits then (`gate`, flow-slots.lua). Null when it held none.
   */
  async releaseHeldBy(executionId: string): Promise<{ skillId: string; granted: GrantedExecution[] } | null> {
    const [skillId, gate] = await this.redis.hmget(this.keys.execution(executionId), 'skill_id', 'gate');
    if (!skillId || !gate) return null;
    const [limit = '0', perKey = '0', key = ''] = gate.split(' ');
    return { skillId, granted: await this.releaseGate(skillId, [limit, perKey, key]) };
  }

  /**
   * Whether the execution holds its slots: given them while its job was being parked, it has its
   * job promoted by the worker that parked it (the one that gave them could not promote it yet).
   */
  async holds({ executionId, skillId, key, limits }: GatedExecution): Promise<boolean> {
    const flow = this.keys.flow.skill(skillId);
    const set = limits.limit === undefined ? `${flow}key:${encodeKey(key)}:running` : `${flow}running`;
    return (await this.redis.zscore(set, executionId)) !== null;
  }

  /** How many executions of the skill are parked, waiting for a slot. */
  async parked(skillId: string): Promise<number> {
    return Math.max(0, Number((await this.redis.get(`${this.keys.flow.skill(skillId)}parked`)) ?? 0));
  }

  /** `gate`: the limit, the limit per key and the URI-encoded key (flow-slots.lua's ARGV[4...6]). */
  private async releaseGate(skillId: string, gate: string[]): Promise<GrantedExecution[]> {
    const granted = await this.releaseScript(
      [`${this.keys.flow.skill(skillId)}ready`],
      this.common(skillId, gate),
    );
    return grantedOf(granted);
  }

  /** flow-slots.lua's ARGV[1...6], `gate` its last three (gateOf). */
  private common(skillId: string, gate: string[]): string[] {
    return [
      this.keys.flow.skill(skillId),
      this.keys.flow.homeRecords(skillId),
      String(this.clock()),
      ...gate,
    ];
  }
}

/** The limit, the limit per key and the URI-encoded key, as flow-slots.lua takes them. */
function gateOf(key: string | undefined, limits: ConcurrencySettings): string[] {
  return [String(limits.limit ?? 0), String(limits.per_key ?? 0), encodeKey(key)];
}

/** A concurrency key as the scripts name it in keys ('' for none). */
function encodeKey(key: string | undefined): string {
  return key === undefined ? '' : encodeURIComponent(key);
}

/** Whether executions of a skill with these limits, under this key, are gated at all. */
export function isGated(
  limits: ConcurrencySettings | undefined,
  key: string | undefined,
): limits is ConcurrencySettings {
  return limits !== undefined && (limits.limit !== undefined || (limits.per_key !== undefined && !!key));
}

function grantedOf(flat: string[]): GrantedExecution[] {
  const granted: GrantedExecution[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) {
    granted.push({
      executionId: flat[i] as string,
      version: flat[i + 1] as string,
      priority: flat[i + 2] as Priority,
    });
  }
  return granted;
}
