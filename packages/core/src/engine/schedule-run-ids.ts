import { createHash } from 'node:crypto';
import type { ShardMap } from '../store/shard-map';

/** The ids of a due time's execution (see LaunchOrigin's `schedule-run`). */
export interface RunIds {
  executionId: string;
  /** Above one shard: the same bits on the schedule's vshard, the id the run takes unless pinned. */
  shardedExecutionId?: string;
}

/**
 * The execution id of a schedule's due time, the same at every try: an RFC 9562 UUID (version 8,
 * its bits a SHA-256 of the two); `on` a vshard, the sharded id of those bits (ShardMap.mintId).
 */
export function runExecutionId(
  scheduleId: string,
  dueAt: number,
  on?: { shards: ShardMap; vshard: number },
): string {
  const hex = createHash('sha256').update(`${scheduleId}\n${dueAt}`).digest('hex');
  if (on) return on.shards.mintId(on.vshard, hex.slice(0, 32));
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A due time's ids: its legacy one, and on `vshard` (the schedule's, above one shard) its sharded one. */
export function runIdsOf(shards: ShardMap, scheduleId: string, dueAt: number, vshard?: number): RunIds {
  const executionId = runExecutionId(scheduleId, dueAt);
  if (vshard === undefined) return { executionId };
  return { executionId, shardedExecutionId: runExecutionId(scheduleId, dueAt, { shards, vshard }) };
}

/**
 * Every id a due time's execution may have been launched under: derived, that on the schedule's
 * vshard, or pinned to the skill's home (a gated or debounced skill's, above one shard: placeExecution).
 */
export function runIdCandidates(
  shards: ShardMap,
  { executionId, shardedExecutionId }: RunIds,
  skillId: string,
): string[] {
  const home = shards.home(skillId);
  const pinned = home === undefined ? undefined : shards.pinId(executionId, home);
  return [executionId, shardedExecutionId, pinned].filter((id): id is string => id !== undefined);
}
