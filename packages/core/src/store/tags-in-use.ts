import type { ShardMap } from './shard-map';

/**
 * The hash tags executions may live on: the prefix (every legacy id's, and every id's with one
 * shard), then each vshard that takes new executions when there are more. What a reader of
 * per-tag keys (open tasks) reads to see them all.
 */
export function tagsInUse(shards: ShardMap): string[] {
  if (shards.shards <= 1) return [shards.prefix];
  return [shards.prefix, ...shards.active().map((vshard) => shards.tag(vshard))];
}
