import { SkillError } from '../errors/skill-error';
import type { ShardMap } from '../store/shard-map';
import type { ExecutionIds } from './execution-ids';
import type { InvocationOrigin } from './launch-origin';

/** What decides where a new execution's keys go (docs/design/sharding.md, design B). */
export interface PlacementNeeds {
  skillId: string;
  /**
   * Gated (concurrency limits) or debounced: its flow control's or debounce's scripts read its
   * record beside the skill's keys, on the skill's home vshard (ShardMap.home).
   */
  pinned: 'gated' | 'debounced' | undefined;
  /**
   * Where it came from: a sharded batch's item goes on the batch's vshard; a schedule's run takes
   * the id its due time gives it (pinned to the skill's home, ExecutionIds.pinned, when gated or
   * debounced). POST invoke's when absent.
   */
  origin?: InvocationOrigin;
}

/**
 * A new execution's id, which says where its keys are: a batch item's on the batch's vshard; a gated
 * or debounced one on its skill's home (a schedule's run too, its id pinned there); a schedule's run
 * on the schedule's vshard; the next active vshard otherwise, whatever the skill's kind (a task
 * skill's too). Refuses, before anything is taken, a batch item its batch's vshard cannot hold: its
 * scripts would fail with CROSSSLOT.
 */
export function placeExecution(ids: ExecutionIds, needs: PlacementNeeds): string {
  const { skillId, pinned, origin } = needs;
  if (origin?.kind === 'batch-item' && origin.vshard !== undefined) {
    const mintOn = { shards: ids.shards, vshard: origin.vshard };
    assertBatchable(needs, mintOn);
    return mintOn.shards.mintId(mintOn.vshard);
  }
  const scheduled = origin?.kind === 'schedule-run' ? origin : undefined;
  if (pinned) return ids.pinned(skillId, scheduled?.executionId);
  if (scheduled) return scheduled.shardedExecutionId ?? scheduled.executionId;
  return ids.mint();
}

/**
 * Refuses, in a sharded batch, a gated or debounced item whose skill's home is another vshard: its
 * end could not renew the batch in its slot.
 */
function assertBatchable({ skillId, pinned }: PlacementNeeds, mintOn: { shards: ShardMap; vshard: number }) {
  if (!pinned || mintOn.shards.home(skillId) === mintOn.vshard) return;
  const reason =
    pinned === 'debounced'
      ? {
          path: '/context/debounce',
          message: "a debounced invocation runs on its skill's home shard, which is not this batch's",
        }
      : {
          path: '/skill_id',
          message: "a skill with a concurrency limit runs on its home shard, which is not this batch's",
        };
  throw new SkillError(
    'INVALID_INPUT',
    'This item cannot run in a batch spread over shards: send it on its own',
    {
      details: [reason],
    },
  );
}
