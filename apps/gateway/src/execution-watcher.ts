import type { RedisKeys } from '@skillrun/core';
import type { Redis } from 'ioredis';
import { ExecutionWatch } from './execution-watch';

export interface ExecutionWatcherOptions {
  /** Opens the subscriber connection (a duplicate of the gateway's), when the first watch begins. */
  open: () => Redis;
  keys: RedisKeys;
  /** Watches this gateway keeps at once (MAX_WAITERS); past it a request answers without waiting. */
  maxWatches: number;
}

/** The requests watching one execution's channel, and the SUBSCRIBE they share. */
interface Channel {
  watches: Set<ExecutionWatch>;
  subscribed: Promise<void>;
}

/** The subscriber connection, and its first readiness (it cannot SUBSCRIBE before). */
interface Subscriber {
  redis: Redis;
  ready: Promise<void>;
}

/**
 * Tells waiting requests when an execution changes, from what the execution store PUBLISHes on the
 * execution's channel: so a GET status that waits is woken by Redis, whichever process made the
 * change, and no gateway polls. One subscriber connection per gateway; one SUBSCRIBE per execution
 * watched, shared by every request watching it and dropped when the last one leaves.
 */
export class ExecutionWatcher {
  private subscriber: Subscriber | undefined;
  private readonly channels = new Map<string, Channel>();
  private watching = 0;
  private closed = false;

  constructor(private readonly options: ExecutionWatcherOptions) {}

  /**
   * Begins watching an execution; null when this gateway already keeps `maxWatches` (or is closing).
   * The caller awaits `subscribed` before it re-reads the record, and always releases the watch.
   */
  watch(executionId: string): ExecutionWatch | null {
    if (this.closed || this.watching >= this.options.maxWatches) return null;
    const name = this.options.keys.executionChanged(executionId);
    let channel = this.channels.get(name);
    if (!channel) {
      const watches = new Set<ExecutionWatch>();
      channel = { watches, subscribed: this.subscribe(name, watches) };
      this.channels.set(name, channel);
    }
    const watch = new ExecutionWatch(channel.subscribed, (ended) => this.release(name, channel, ended));
    channel.watches.add(watch);
    this.watching++;
    return watch;
  }

  /** Wakes every waiting request (they answer what they read now) and closes the connection. */
  close(): void {
    this.closed = true;
    this.dropSubscriber();
  }

  private release(name: string, channel: Channel, watch: ExecutionWatch): void {
    if (!channel.watches.delete(watch)) return;
    this.watching--;
    if (channel.watches.size > 0 || this.channels.get(name) !== channel) return;
    this.channels.delete(name);
    // Sent after the SUBSCRIBE on the same connection, so a watch released early leaves no subscription.
    this.subscriber?.redis.unsubscribe(name).catch(() => {});
  }

  private async subscribe(name: string, watches: Set<ExecutionWatch>): Promise<void> {
    const subscriber = this.connect();
    await subscriber.ready;
    // Every request may have left while the connection was made (its UNSUBSCRIBE could not be sent).
    if (this.channels.get(name)?.watches !== watches) return;
    await subscriber.redis.subscribe(name);
  }

  private connect(): Subscriber {
    if (this.subscriber) return this.subscriber;
    const redis = this.options.open();
    // Errors are expected while Redis is away; the close that follows wakes the waiting requests.
    redis.on('error', () => {});
    redis.on('message', (name: string, message: string) => this.announce(name, message));
    redis.on('close', () => {
      if (this.subscriber?.redis === redis) this.dropSubscriber();
    });
    const ready =
      redis.status === 'ready'
        ? Promise.resolve()
        : new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    this.subscriber = { redis, ready };
    return this.subscriber;
  }

  private announce(name: string, message: string | null): void {
    for (const watch of this.channels.get(name)?.watches ?? []) watch.announce(message);
  }

  /**
   * A lost connection is replaced rather than resumed: what was announced while it was away is
   * lost, so every waiting request is woken to read the record afresh (a 503 if Redis is still
   * away), and its channels are forgotten so that no subscription outlives its watches.
   */
  private dropSubscriber(): void {
    const redis = this.subscriber?.redis;
    this.subscriber = undefined;
    for (const name of [...this.channels.keys()]) this.announce(name, null);
    this.channels.clear();
    redis?.disconnect();
  }
}
