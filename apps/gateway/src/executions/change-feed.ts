import type { RedisKeys } from '@skillrun/core/data';
import type { Redis } from 'ioredis';

/** One change of an execution, as the notifications stream holds it. */
export interface FeedEvent {
  /** The stream entry's id (`<ms>-<seq>`): in order, and where a reconnecting client resumes. */
  id: string;
  executionId: string;
  status: string;
  owner: string;
}

export interface ChangeFeedOptions {
  /** The connection that blocks on XREAD (a duplicate of the gateway's), opened on first use. */
  open: () => Redis;
  /** The gateway's connection, for reads that do not block. */
  redis: Redis;
  keys: RedisKeys;
}

type Listener = (event: FeedEvent) => void;
type Entry = [id: string, fields: string[]];

const BLOCK_MS = 5000;
const BATCH = 500;

/**
 * The notifications stream (executions' changes that someone follows or a webhook hears of, appended
 * by the execution store), read by one blocking loop per gateway while any caller's event stream is
 * open, and handed to the streams of each event's caller. Reads that resume from an id go to the
 * stream itself, so a client that reconnects with Last-Event-ID loses nothing the stream still holds.
 */
export class ChangeFeed {
  private readonly listeners = new Map<string, Set<Listener>>();
  private reader: Redis | undefined;
  /** Settles when the loop has its starting point; unset while no loop runs. */
  private started: Promise<void> | undefined;
  private last = '0-0';

  constructor(private readonly options: ChangeFeedOptions) {}

  /**
   * Hands every event of the owner's from now on to `listener`, until the function returned is
   * called. Resolves once the loop reads from no later than the stream's present end.
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
    if (!this.started) {
      const started = this.top().then((id) => {
        this.last = id;
      });
      this.started = started;
      // A loop that could not start (Redis away) is tried again by the next subscriber.
      started.then(
        () => void this.loop(),
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

  /** The id of the stream's latest entry ('0-0' when it is empty): what a snapshot is as of. */
  async top(): Promise<string> {
    const [latest] = (await this.options.redis.xrevrange(
      this.options.keys.notifications(),
      '+',
      '-',
      'COUNT',
      1,
    )) as Entry[];
    return latest?.[0] ?? '0-0';
  }

  /**
   * The owner's events after `afterId`, in order, at most `limit` looked at; `complete` is false when
   * the stream no longer holds everything after it (trimmed), so some may be missing.
   */
  async since(
    owner: string,
    afterId: string,
    limit = 10_000,
  ): Promise<{ events: FeedEvent[]; complete: boolean }> {
    const stream = this.options.keys.notifications();
    const [first] = (await this.options.redis.xrange(stream, '-', '+', 'COUNT', 1)) as Entry[];
    const complete = first === undefined || compareIds(first[0], afterId) <= 0 || afterId === '0-0';
    const entries = (await this.options.redis.xrange(stream, `(${afterId}`, '+', 'COUNT', limit)) as Entry[];
    return { events: entries.map(eventOf).filter((event) => event.owner === owner), complete };
  }

  close(): void {
    this.listeners.clear();
    this.reader?.disconnect();
  }

  private async loop(): Promise<void> {
    const reader = this.options.open();
    reader.on('error', () => {});
    this.reader = reader;
    try {
      while (this.listeners.size > 0) {
        let read: [string, Entry[]][] | null;
        try {
          read = (await reader.xread(
            'COUNT',
            BATCH,
            'BLOCK',
            BLOCK_MS,
            'STREAMS',
            this.options.keys.notifications(),
            this.last,
          )) as [string, Entry[]][] | null;
        } catch {
          if (this.reader !== reader || reader.status === 'end') return;
          await new Promise((resolve) => setTimeout(resolve, 500));
          continue;
        }
        for (const entry of read?.[0]?.[1] ?? []) {
          this.last = entry[0];
          const event = eventOf(entry);
          for (const listener of this.listeners.get(event.owner) ?? []) listener(event);
        }
      }
    } finally {
      this.started = undefined;
      if (this.reader === reader) this.reader = undefined;
      reader.disconnect();
    }
  }
}

function eventOf([id, flat]: Entry): FeedEvent {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return {
    id,
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
