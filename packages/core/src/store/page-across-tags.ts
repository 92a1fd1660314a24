import type { Redis } from 'ioredis';
import type { ShardMap } from './shard-map';
import { tagsInUse } from './tags-in-use';

/** A sorted set's member and its score: an entry of a page, and the cursor a page goes on after. */
export interface ScoredId {
  id: string;
  score: number;
}

/**
 * A page of a sorted set kept on each tag in use (`keyOf(tag)`: open tasks, pending approvals):
 * ids oldest first (then by id), from `after` (exclusive score/id cursor), at most `count`. Each
 * tag's set is read apart (a cluster client sends no command across slots) and the reads merged.
 */
export async function pageAcrossTags(
  redis: Redis,
  shards: ShardMap,
  keyOf: (tag: string) => string,
  after: ScoredId | undefined,
  count: number,
): Promise<ScoredId[]> {
  const read = tagsInUse(shards).map((tag) => pageOn(redis, keyOf(tag), after, count));
  const merged = (await Promise.all(read)).flat();
  // One set comes in order already: ZRANGEBYSCORE orders ties by id, as the merge does.
  if (read.length > 1) merged.sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return merged.slice(0, count);
}

/** One set's page, as `pageAcrossTags`. */
async function pageOn(
  redis: Redis,
  key: string,
  after: ScoredId | undefined,
  count: number,
): Promise<ScoredId[]> {
  const flat = await redis.zrangebyscore(
    key,
    after?.score ?? '-inf',
    '+inf',
    'WITHSCORES',
    'LIMIT',
    0,
    count + 50,
  );
  const entries: ScoredId[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const entry = { id: flat[i] as string, score: Number(flat[i + 1]) };
    // Ties on the cursor's score: those up to the cursor's id were on an earlier page.
    if (after && entry.score === after.score && entry.id <= after.id) continue;
    entries.push(entry);
  }
  return entries.slice(0, count);
}
