import type { Redis } from 'ioredis';
import { decodeEntry, type IndexedExecution } from './index-entry';
import type { ListPosition } from './index-position';

/** An entry read, and where it is: its hour's list, and its place in it. */
interface ReadEntry extends IndexedExecution {
  hour: number;
  index: number;
}

/**
 * One tag's hour lists (everyone's or one owner's), read newest first from a position back to the
 * oldest hour of a range, a chunk at a time: what a listing merges, one per tag (ExecutionIndex).
 */
export class IndexStream {
  /** Read but not taken, newest first. */
  private buffer: ReadEntry[] = [];

  /**
   * `position`: where to read on from (null: nothing left); `listOf`: the tag's list of an hour;
   * `oldest`: the range's first hour.
   */
  constructor(
    private readonly redis: Redis,
    private readonly listOf: (hour: number) => string,
    private position: ListPosition | null,
    private readonly oldest: number,
  ) {}

  /**
   * Where the stream goes on from: just past the entries taken (those read but not taken are read
   * again from there).
   */
  get at(): ListPosition | null {
    const head = this.buffer[0];
    return head === undefined ? this.position : { hour: head.hour, before: head.index + 1 };
  }

  /** The next entry, not taken; read from Redis (up to `want` of an hour) when none is left read. */
  async peek(want: number): Promise<IndexedExecution | undefined> {
    while (this.buffer.length === 0 && this.position !== null) await this.read(want);
    return this.buffer[0];
  }

  /** Takes the entry `peek` answered. */
  take(): IndexedExecution | undefined {
    return this.buffer.shift();
  }

  /** The next chunk of the hour the position is in, or the position moved on to an older hour. */
  private async read(want: number): Promise<void> {
    const { hour, before: known } = this.position as ListPosition;
    if (hour < this.oldest) {
      this.position = null;
      return;
    }
    const list = this.listOf(hour);
    const before = known ?? (await this.redis.llen(list));
    const start = Math.max(0, before - want);
    const entries = before > 0 ? await this.redis.lrange(list, start, before - 1) : [];
    // None where some were: the list expired (or the cursor was not ours); either way, an older hour.
    if (entries.length === 0) {
      this.position = { hour: hour - 1 };
      return;
    }
    this.buffer = entries
      .map((entry, i) => ({ ...decodeEntry(entry, hour), hour, index: start + i }))
      .reverse();
    this.position = { hour, before: start };
  }
}
