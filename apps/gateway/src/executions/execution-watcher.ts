import { randomBytes } from 'node:crypto';
import type { RedisKeys } from '@skillrun/core/data';
import type { Redis } from 'ioredis';
import { ExecutionWatch } from './execution-watch';

export interface ExecutionWatcherOptions {
  /** Opens the subscriber connection (a duplicate of the gateway's), when the first watch begins. */
  open: () => Redis;
  keys: RedisKeys;
  /** Watches this gateway keeps at once (MAX_WAITERS); past it a request answers without waiting. */
  maxWatches: number;
}

/** The subscriber connection, and its SUBSCRIBE to this watcher's inbox. */
interface Subscriber {
  redis: Redis;
  subscribed: Promise<void>;
}

/**
 * Tells waiting requests when an execution changes, from what the execution store PUBLISHes in
 * this watcher's inbox (RedisKeys.watcherInbox): a record names the watchers that want its changes
 * (ExecutionRecords.read's `watcher`, or the record's `watched` from its creation), so a GET status
 * that waits is woken by Redis, whichever process made the change, and no gateway polls. One
 * subscriber connection and one channel per gateway, subscribed once: a wait costs Redis no
 * SUBSCRIBE or UNSUBSCRIBE, and the request that invokes and waits sends its record without waiting
 * for a subscription first. A record keeps the ids of the watchers it had until it expires: an
 * announcement nobody here waits for any more is dropped.
 */
export class ExecutionWatcher {
  /** This watcher's id: what records name in `watched`, and its inbox's name ends with. */
  readonly id = randomBytes(8).toString('hex');
  private subscriber: Subscriber | undefined;
  /** The requests watching each execution. */
  private readonly watches = new Map<string, Set<ExecutionWatch>>();
  private watching = 0;
  private closed = false;

  constructor(private readonly options: ExecutionWatcherOptions) {}

  /**
   * Begins watching an execution; null when this gateway already keeps `maxWatches` (or is closing).
   * The caller awaits `subscribed` before it marks the record watched (or creates it so), and always
   * releases the watch.
   */
  watch(executionId: string): ExecutionWatch | null {
    if (this.closed || this.watching >= this.options.maxWatches) return null;
    const watches = this.watches.get(executionId) ?? new Set<ExecutionWatch>();
    this.watches.set(executionId, watches);
    const watch = new ExecutionWatch(this.connect().subscribed, (ended) =>
      this.release(executionId, watches, ended),
    );
    watches.add(watch);
    this.watching++;
    return watch;
  }

  /** The watches kept now (requests waiting, streams following), of `maxWatches`. */
  get waiting(): number {
    return this.watching;
  }

  /** Wakes every waiting request (they answer what they read now) and closes the connection. */
  close(): void {
    this.closed = true;
    this.dropSubscriber();
  }

  private release(executionId: string, watches: Set<ExecutionWatch>, watch: ExecutionWatch): void {
    if (!watches.delete(watch)) return;
    this.watching--;
    if (watches.size === 0 && this.watches.get(executionId) === watches) this.watches.delete(executionId);
  }

  private connect(): Subscriber {
    if (this.subscriber) return this.subscriber;
    const redis = this.options.open();
    // Errors are expected while Redis is away; the close that follows wakes the waiting requests.
    redis.on('error', () => {});
    redis.on('message', (_channel: string, message: string) => this.announce(message));
    redis.on('close', () => {
      if (this.subscriber?.redis === redis) this.dropSubscriber();
    });
    const ready =
      redis.status === 'ready'
        ? Promise.resolve()
        : new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    const inbox = this.options.keys.watcherInbox(this.id);
    const subscribed = ready.then(async () => {
      await redis.subscribe(inbox);
    });
    // Refused (Redis answering an error): the next watch tries again, on a fresh connection.
    subscribed.catch(() => {
      if (this.subscriber?.redis === redis) this.dropSubscriber();
    });
    this.subscriber = { redis, subscribed };
    return this.subscriber;
  }

  /** An announcement: the execution's id, then what its watches are told (see ExecutionWatch.announce). */
  private announce(message: string): void {
    const lineEnd = message.indexOf('\n');
    if (lineEnd === -1) return;
    const watches = this.watches.get(message.slice(0, lineEnd));
    if (!watches) return;
    const change = message.slice(lineEnd + 1);
    for (const watch of watches) watch.announce(change);
  }

  /**
   * A lost connection is replaced rather than resumed: what was announced while it was away is
   * lost, so every waiting request is woken to read the record afresh (a 503 if Redis is still
   * away); the next watch opens a fresh connection and subscribes the inbox again.
   */
  private dropSubscriber(): void {
    const redis = this.subscriber?.redis;
    this.subscriber = undefined;
    for (const watches of this.watches.values()) for (const watch of watches) watch.announce(null);
    redis?.disconnect();
  }
}
