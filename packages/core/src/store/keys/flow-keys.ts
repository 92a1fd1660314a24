import type { ShardMap } from '../shard-map';

/**
 * The keys of what limits how many executions run or start: a skill's flow control (skill.json
 * `concurrency` and `rate_limit`) and debounce, on the skill's home tag, and the callers' quotas.
 */
export class FlowKeys {
  constructor(private readonly shards: ShardMap) {}

  /**
   * What every key of one skill's flow control (across its versions) and debounce starts with; the
   * flow scripts append the rest (flow-slots.lua). On the skill's home tag (ShardMap.home: the prefix
   * at one shard), where its gated and debounced executions are, so that the scripts reach their
   * records in one slot.
   */
  skill(skillId: string): string {
    return `${this.shards.homeTag(skillId)}:flow:${encodeURIComponent(skillId)}:`;
  }

  /** What the records of a skill's gated and debounced executions start with: its home tag's. */
  homeRecords(skillId: string): string {
    return `${this.shards.homeTag(skillId)}:exec:`;
  }

  /**
   * STRING: the execution that one debounce key (context.debounce) has open, for one skill and one
   * caller (`scope`: an authenticated caller, or an anonymous one's caller id), by mode; on the
   * skill's home tag, as its flow keys.
   */
  debounce(skillId: string, scope: string, mode: string, key: string): string {
    return `${this.skill(skillId)}debounce:${[scope, mode, key].map(encodeURIComponent).join(':')}`;
  }

  /** ZSET start → epoch ms: the starts of one skill's rate limit within its window (rate-starts.ts). */
  rateStarts(skillId: string): string {
    return `${this.skill(skillId)}starts`;
  }

  /** ZSET execution id → time its slot was taken: one concurrency quota's executions in flight. */
  inFlight(...partition: string[]): string {
    return `${this.shards.prefix}:in-flight:${partition.map(encodeURIComponent).join(':')}`;
  }

  /** Prefix of the fixed-window counters of rate limits. */
  rateLimits(): string {
    return `${this.shards.prefix}:rate`;
  }
}
