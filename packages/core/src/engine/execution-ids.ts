import { randomUUID } from 'node:crypto';
import type { ShardMap } from '../store/shard-map';

/**
 * Where new execution ids come from (docs/design/sharding.md, design B): at one shard a random UUID,
 * a legacy id under KEY_PREFIX, as before sharding; above one, each active vshard in turn, so that
 * executions spread over the masters. A gated or debounced execution is pinned to its skill's home
 * vshard (`pinned`), where its flow control's and debounce's keys are.
 */
export class ExecutionIds {
  private turn = 0;

  constructor(readonly shards: ShardMap) {}

  /** A new execution's id; a legacy one at one shard. */
  mint(): string {
    const vshard = this.nextVshard();
    return vshard === undefined ? randomUUID() : this.shards.mintId(vshard);
  }

  /** The active vshards in turn (what `mint` places on); none at one shard. */
  nextVshard(): number | undefined {
    if (this.shards.shards === 1) return undefined;
    const active = this.shards.active();
    const vshard = active[this.turn % active.length] as number;
    this.turn = (this.turn + 1) % active.length;
    return vshard;
  }

  /**
   * A composite step's id: on its parent's vshard, so that BullMQ's parent and child jobs share a
   * slot; a legacy id under a legacy parent.
   */
  inherit(parentId: string): string {
    const vshard = this.shards.vshardOf(parentId);
    return vshard === undefined ? randomUUID() : this.shards.mintId(vshard);
  }

  /**
   * A gated or debounced execution's id: on its skill's home vshard (ShardMap.home), so that the
   * flow control's and debounce's scripts reach its record in their slot; a legacy id at one shard.
   * `derived`: a schedule run's id (the same at every try), kept at one shard, pinned above.
   */
  pinned(skillId: string, derived?: string): string {
    const home = this.shards.home(skillId);
    if (home === undefined) return derived ?? randomUUID();
    return derived === undefined ? this.shards.mintId(home) : this.shards.pinId(derived, home);
  }

  /**
   * Whether an execution with this id is where a pinned execution of the skill must be (its home's
   * tag): every id at one shard; above, only one on the skill's home vshard.
   */
  atHome(executionId: string, skillId: string): boolean {
    return this.shards.tagOf(executionId) === this.shards.homeTag(skillId);
  }

  /** Whether two executions' keys share a hash tag (BullMQ can make one the other's parent). */
  together(one: string, other: string): boolean {
    return this.shards.tagOf(one) === this.shards.tagOf(other);
  }
}
