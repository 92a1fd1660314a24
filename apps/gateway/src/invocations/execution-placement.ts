import { SkillError } from '@skillrun/core';
import type { ExecutionIds, ShardMap } from '@skillrun/core/data';

/** What decides where a new execution's keys go (docs/design/sharding.md, design B). */
export interface PlacementNeeds {
  skillId: string;
  /**
   * Gated (concurrency limits) or debounced: its flow control's or debounce's scripts read its
   * record beside the skill's keys, on the skill's home vshard (ShardMap.home).
   */
  pinned: 'gated' | 'debounced' | undefined;
  /** Its caller holds an in-flight quota: its end frees a slot under the prefix (slice 8). */
  quota: boolean;
  /** Of a `task` skill: left under the prefix while its hand-in paths are untested on a cluster. */
  task: boolean;
  /** A sharded batch's item: on the batch's vshard, so that its end renews the batch in its slot. */
  mintOn?: { shards: ShardMap; vshard: number };
  /**
   * A schedule's run: the id its due time gives it (under the prefix until slice 14), pinned to the
   * skill's home (ExecutionIds.pinned) when gated or debounced.
   */
  scheduledId?: string;
}

/**
 * A new execution's id, which says where its keys are: a batch item's on the batch's vshard; a gated
 * or debounced one on its skill's home (a schedule's run too, its id pinned there); a schedule's
 * run's own otherwise; a legacy one (under the prefix) for a task or a caller with an in-flight
 * quota; the next active vshard otherwise. Refuses, before anything is taken, an execution two of
 * these would put in two places: its scripts would fail with CROSSSLOT.
 */
export function placeExecution(ids: ExecutionIds, needs: PlacementNeeds): string {
  const { skillId, pinned, quota, task, mintOn, scheduledId } = needs;
  if (mintOn) {
    assertBatchable(needs, mintOn);
    return mintOn.shards.mintId(mintOn.vshard);
  }
  if (!pinned) return scheduledId ?? ids.mint(task || quota);
  // At one shard the skill's home is the prefix, where a quota's slots are too.
  if (quota && ids.shards.home(skillId) !== undefined) {
    throw new SkillError(
      'NOT_CONFIGURED',
      `With REDIS_SHARDS above 1, a ${pinned} execution cannot be started by a caller with a concurrency quota yet (its keys would be on two shards)`,
    );
  }
  return ids.pinned(skillId, scheduledId);
}

/**
 * Refuses, in a sharded batch, an item whose execution cannot be on the batch's vshard: one of a
 * caller with a concurrency quota (its end frees a slot under the prefix, slice 8), or a gated or
 * debounced one whose skill's home is another vshard (its end could not renew the batch in its slot).
 */
function assertBatchable(
  { skillId, pinned, quota }: PlacementNeeds,
  mintOn: { shards: ShardMap; vshard: number },
) {
  const reason = quota
    ? { path: '/caller', message: 'a caller with a concurrency quota cannot start items of a sharded batch' }
    : pinned && mintOn.shards.home(skillId) !== mintOn.vshard
      ? pinned === 'debounced'
        ? {
            path: '/context/debounce',
            message: "a debounced invocation runs on its skill's home shard, which is not this batch's",
          }
        : {
            path: '/skill_id',
            message: "a skill with a concurrency limit runs on its home shard, which is not this batch's",
          }
      : undefined;
  if (reason) {
    throw new SkillError(
      'INVALID_INPUT',
      'This item cannot run in a batch spread over shards: send it on its own',
      {
        details: [reason],
      },
    );
  }
}
