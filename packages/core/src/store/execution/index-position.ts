/** Where one tag's lists go on from: the hour, and how many of its entries are still to read. */
export interface ListPosition {
  hour: number;
  /** Entries [0, before) of the hour's list are still to read (newest last); all of it when absent. */
  before?: number;
}

/**
 * Where a listing goes on from: one position per tag the index is on (ShardMap.tags(), in order),
 * null for a tag with nothing older left in the range.
 */
export type IndexPosition = (ListPosition | null)[];

/** As a cursor carries it, compactly: `[hour, before]` or `[hour]` per tag, 0 for none. */
export function compactPosition(position: IndexPosition): unknown[] {
  return position.map((list) => {
    if (list === null) return 0;
    return list.before === undefined ? [list.hour] : [list.hour, list.before];
  });
}

/**
 * The position a compact one names, for an index on `tags` tags; undefined when it is not one
 * (tampered, or given out under another REDIS_SHARDS: its tags are not these).
 */
export function positionFrom(compact: unknown, tags: number): IndexPosition | undefined {
  if (!Array.isArray(compact) || compact.length !== tags) return undefined;
  const position: IndexPosition = [];
  for (const list of compact) {
    if (list === 0) position.push(null);
    else if (!Array.isArray(list) || !Number.isSafeInteger(list[0])) return undefined;
    else if (list.length === 1) position.push({ hour: list[0] });
    else if (list.length === 2 && Number.isSafeInteger(list[1]) && list[1] >= 0) {
      position.push({ hour: list[0], before: list[1] });
    } else return undefined;
  }
  return position;
}
