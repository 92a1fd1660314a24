import { randomUUID } from 'node:crypto';
import type { ShardMap } from '../store/shard-map';

/**
 * Where new execution ids come from (docs/design/sharding.md, design B): at one shard a random UUID,
 * a legacy id under KEY_PREFIX, as before sharding; above one, each active vshard in turn, so that
 * executions spread over the masters. An execution whose scripts reach keys of the prefix's (flow
 * control and debounce: slice 12) is given a legacy id still, so that those scripts stay in one
 * slot, and so is a task skill's (its hand-in paths untried on a cluster).
 */
export class ExecutionIds {
  private turn = 0;

  constructor(private readonly shards: ShardMap) {}

  /** A new execution's id; a legacy one when `legacy`, and every one at one shard. */
  mint(legacy = false): string {
    const vshard = legacy ? undefined : this.nextVshard();
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

  /** Whether an execution of this id is on a vshard of its own (not under the prefix). */
  sharded(executionId: string): boolean {
    return this.shards.vshardOf(executionId) !== undefined;
  }
}
