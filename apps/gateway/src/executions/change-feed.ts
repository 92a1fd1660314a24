import type { RedisKeys } from '@skillrun/core/data';
import type { Redis } from 'ioredis';

/** One change of an execution, as a notifications stream holds it. */
export interface FeedEvent {
  /** Which of the feed's streams holds it (NotificationKeys.streams()' order). */
  stream: number;
  /** Its entry id there (`<ms>-<seq>`): in order within that stream. */
  entry: string;
  executionId: string;
  status: string;
  owner: string;
}

export interface ChangeFeedOptions {
  /** A connection that blocks on XREAD (a duplicate of the gateway's), one per stream, opened on first use. */
  open: () => Redis;
  /** The gateway's connection, for reads that do not block. */
  redis: Redis;
  keys: RedisKeys;
}

type Listener = (event: FeedEvent) => void;
type Entry = [id: string, fields: string[]];

const BLOCK_MS = 5000;
const BATCH = 500;
const ENTRY_ID = /^\d+-\d+$/;

/**
 * The notifications streams (executions' changes that someone follows or a webhook hears of, appended
 * by the execution store; one per hash tag, NotificationKeys.streams()), each read by a blocking
 * loop of the gateway's while any caller's event stream is open, and handed to the streams of each
 * event's caller. Where a reader is, a position, is the last entry id it has of each stream, joined
 * by `_` (one stream, the only one at one shard: that entry id alone, as before sharding). Reads
 * that resume from a position go to the streams themselves, so a client that reconnects with
 * Last-Event-ID loses nothing the streams still hold.
 */
export class ChangeFeed {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly readers = new Set<Redis>();
  private readonly streams: string[];
  /** Settles when the loops have their starting point; unset while none runs. */
  private started: Promise<void> | undefined;
  /** Settles when every loop has ended; `stopping` once one saw no listener left (the others follow). */
  private running: Promise<void> | undefined;
  private stopping = false;
  private last: string[] = [];

  constructor(private readonly options: ChangeFeedOptions) {
    this.streams = options.keys.notifications.streams().map(({ key }) => key);
  }

  /**
   * Hands every event of the owner's from now on to `listener`, until the function returned is
   * called. Resolves once the loops read from no later than the streams' present ends.
   */
  async subscribe(owner: string, listener: Listener): Promise<() => void> {
    let set = this.listeners.get(owner);
    if (!set) {
      set = new Set();
      this.listeners.set(owner, set);
    }
    set.add(listener);
    const unsubscribe = () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(owner) === set) this.listeners.delete(owner);
    };
    // Loops on their way out (one saw nobody listening) end before new ones start.
    if (this.stopping) await this.running;
    if (!this.started) {
      const started = this.top().then((position) => {
        this.last = position.split('_');
      });
      this.started = started;
      // Loops that could not start (Redis away) are tried again by the next subscriber.
      started.then(
        () => {
          this.running = this.loop();
        },
        () => {
          if (this.started === started) this.started = undefined;
        },
      );
    }
    try {
      await this.started;
    } catch (error) {
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  /** The position of the streams' latest entries ('0-0' for an empty one): what a snapshot is as of. */
  async top(): Promise<string> {
    const latest = await Promise.all(
      this.streams.map(async (stream) => {
        const [entry] = (await this.options.redis.xrevrange(stream, '+', '-', 'COUNT', 1)) as Entry[];
        return entry?.[0] ?? '0-0';
      }),
    );
    return latest.join('_');
  }

  /** Whether `value` (a client's Last-Event-ID) is a position of this feed's streams. */
  isPosition(value: string): boolean {
    const ids = value.split('_');
    return ids.length === this.streams.length && ids.every((id) => ENTRY_ID.test(id));
  }

  /**
   * The owner's events after `position`, in order within each stream, at most `limit` looked at
   * in each; `complete` is false when a stream no longer holds everything after it (trimmed), so
   * some may be missing.
   */
  async since(
    owner: string,
    position: string,
    limit = 10_000,
  ): Promise<{ events: FeedEvent[]; complete: boolean }> {
    const after = position.split('_');
    const reads = await Promise.all(
      this.streams.map(async (stream, i) => {
        const afterId = after[i] ?? '0-0';
        const [first] = (await this.options.redis.xrange(stream, '-', '+', 'COUNT', 1)) as Entry[];
        const complete = first === undefined || compareIds(first[0], afterId) <= 0 || afterId === '0-0';
        const entries = (await this.options.redis.xrange(
          stream,
          `(${afterId}`,
          '+',
          'COUNT',
          limit,
        )) as Entry[];
        return { complete, events: entries.map((entry) => eventOf(i, entry)) };
      }),
    );
    const events = reads
      .flatMap((read) => read.events)
      .filter((event) => event.owner === owner)
      // Streams apart, by time (entry ids are milliseconds first); stable within each stream.
      .sort((a, b) => compareIds(a.entry, b.entry));
    return { events, complete: reads.every((read) => read.complete) };
  }

  close(): void {
    this.listeners.clear();
    for (const reader of this.readers) reader.disconnect();
    this.readers.clear();
  }

  private async loop(): Promise<void> {
    try {
      await Promise.all(this.streams.map((stream, i) => this.read(stream, i)));
    } finally {
      this.started = undefined;
      this.stopping = false;
    }
  }

  private async read(stream: string, index: number): Promise<void> {
    const reader = this.options.open();
    reader.on('error', () => {});
    this.readers.add(reader);
    try {
      while (!this.stopping) {
        if (this.listeners.size === 0) {
          this.stopping = true;
          return;
        }
        let read: [string, Entry[]][] | null;
        try {
          read = (await reader.xread(
            'COUNT',
            BATCH,
            'BLOCK',
            BLOCK_MS,
            'STREAMS',
            stream,
            this.last[index] ?? '0-0',
          )) as [string, Entry[]][] | null;
        } catch {
          if (!this.readers.has(reader) || reader.status === 'end') return;
          await new Promise((resolve) => setTimeout(resolve, 500));
          continue;
        }
        for (const entry of read?.[0]?.[1] ?? []) {
          this.last[index] = entry[0];
          const event = eventOf(index, entry);
          for (const listener of this.listeners.get(event.owner) ?? []) listener(event);
        }
      }
    } finally {
      this.readers.delete(reader);
      reader.disconnect();
    }
  }
}

/**
 * The position after `event` for a reader at `position`; undefined when the position is past it
 * already (the event was had).
 */
export function advance(position: string, event: FeedEvent): string | undefined {
  const ids = position.split('_');
  const at = ids[event.stream] ?? '0-0';
  if (compareIds(event.entry, at) <= 0) return undefined;
  ids[event.stream] = event.entry;
  return ids.join('_');
}

function eventOf(stream: number, [id, flat]: Entry): FeedEvent {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return {
    stream,
    entry: id,
    executionId: fields.execution_id ?? '',
    status: fields.status ?? '',
    owner: fields.owner ?? '',
  };
}

/** Orders two stream ids (`<ms>-<seq>`). */
export function compareIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs === bMs ? aSeq - bSeq : aMs - bMs;
}
