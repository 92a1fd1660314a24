/** The index's buckets: epoch hours. */
export const HOUR_MS = 3_600_000;

/** An entry of an hour's list as a listing reads it. */
export interface IndexedExecution {
  id: string;
  /** Epoch ms of its creation, which orders entries across tags (ExecutionIndex). */
  createdAt: number;
}

/**
 * What an hour's list holds for an execution: its bare id on one tag (nothing to merge, and the lists
 * written before sharding stay readable), its id and creation time, `<id>@<ms in base 36>`, when the
 * lists are spread over the vshards (9 bytes more an entry).
 */
export function encodeEntry(execution: IndexedExecution, timed: boolean): string {
  return timed ? `${execution.id}@${execution.createdAt.toString(36)}` : execution.id;
}

/**
 * An entry of `hour`'s list. A bare id (written at one shard, before the lists were spread) counts as
 * created at the start of its hour: the newest of the other tags' in that hour come before it.
 */
export function decodeEntry(entry: string, hour: number): IndexedExecution {
  const at = entry.indexOf('@');
  if (at < 0) return { id: entry, createdAt: hour * HOUR_MS };
  return { id: entry.slice(0, at), createdAt: Number.parseInt(entry.slice(at + 1), 36) };
}
