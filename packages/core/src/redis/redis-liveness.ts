import { type Redis, ReplyError } from 'ioredis';
import type { Logger } from '../logging/create-logger';
import { redisAddressOf } from './redis-address';
import type { RedisTarget } from './redis-target';

export interface RedisLivenessOptions {
  /**
   * How often each connection is asked PING (REDIS_LIVENESS_MS). One that has not answered by the
   * next time, or whose handshake has not ended by then, has stopped answering.
   */
  intervalMs: number;
  /** Where the connections go (named in the line, without a password). */
  target: RedisTarget;
  /** Told once per incident; none in a sandbox thread, whose worker says it. */
  logger?: Logger;
}

export interface WatchOptions {
  /** Longest a command of this connection blocks (XREAD BLOCK): its PING waits behind it. */
  blocksMs?: number;
}

/**
 * Notices a Redis that stopped answering without closing anything (a network partition drops
 * packets; TCP keepalive takes minutes, and a proxy in between answers it anyway), and leaves it:
 * each connection watched is asked PING every `intervalMs`, which Redis answers in subscriber mode
 * too; one whose PING is still unanswered a tick later (plus what it blocks for), or that connected
 * but never finished its handshake by then, is closed, and ioredis connects again: through the
 * Sentinels, which name the master anew, or the cluster's slots. So a connection leaves a silent
 * server within 2 × `intervalMs` (+ its block). Any answer counts: an error too. When one is found
 * silent, so is every other that has not answered since it was asked: they share the path to that
 * server, and one blocked (BZPOPMIN, XREAD BLOCK) would otherwise wait out its block first. One line
 * per incident: from the first connection found silent until every one has answered again.
 */
export class RedisLiveness {
  private readonly watched = new Set<ConnectionProbe>();
  /** When the incident's line was written; unset when there is none. */
  private incidentAt: number | undefined;

  constructor(private readonly options: RedisLivenessOptions) {}

  /** The ioredis options that go with it: a connection attempt is bounded as a PING is. */
  get connectTimeoutMs(): number {
    return 2 * this.options.intervalMs;
  }

  /** Watches `redis` until it ends; returns it. */
  watch<R extends Redis>(redis: R, { blocksMs = 0 }: WatchOptions = {}): R {
    if ([...this.watched].some((probe) => probe.redis === redis)) return redis;
    const probe = new ConnectionProbe(redis, 1 + Math.ceil(blocksMs / this.options.intervalMs), {
      silent: (since) => this.silent(probe, since),
      answered: () => this.answered(),
      ended: () => this.watched.delete(probe),
    });
    this.watched.add(probe);
    probe.start(this.options.intervalMs);
    return redis;
  }

  /** `found` has not answered since `since`: every other connection that has not either goes too. */
  private silent(found: ConnectionProbe, since: number): void {
    for (const probe of this.watched) {
      if (probe !== found && probe.redis.status === 'ready' && probe.answeredAt < since) probe.leave();
    }
    if (this.incidentAt !== undefined) return;
    this.incidentAt = Date.now();
    const { text } = redisAddressOf(this.options.target);
    this.options.logger?.warn({ redis: text }, `Redis at ${text} stopped answering: reconnecting`);
  }

  private answered(): void {
    const since = this.incidentAt;
    if (since === undefined) return;
    if ([...this.watched].every((probe) => probe.answeredAt > since)) this.incidentAt = undefined;
  }
}

interface ProbeEvents {
  /** Found silent: no answer since `since` (its PING was asked, or it connected). */
  silent: (since: number) => void;
  answered: () => void;
  ended: () => void;
}

/** One connection's PINGs and handshake, counted in ticks. */
class ConnectionProbe {
  /** When it last answered a PING, or became ready. */
  answeredAt = 0;
  /** When the PING (or the handshake) it waits for was asked; 0 when it waits for nothing. */
  private askedAt = 0;
  /** Ticks it has waited for it. */
  private waited = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly redis: Redis,
    /** Ticks a PING may wait: one, and those its connection's longest block spans. */
    private readonly patience: number,
    private readonly events: ProbeEvents,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
    this.redis.on('ready', this.answer);
    this.redis.on('close', this.reset);
    this.redis.on('end', this.end);
  }

  /**
   * Closes the connection at once, and ioredis opens it again (as its own socket timeout does):
   * disconnect() would first wait two seconds for the silent server to agree. A cluster client,
   * which has no one socket, is reconnected as a whole.
   */
  leave(): void {
    this.reset();
    if (this.redis.isCluster) this.redis.disconnect(true);
    else this.redis.stream?.destroy();
  }

  private tick(): void {
    const { status } = this.redis;
    // Connected, and the handshake (INFO, CLIENT SETINFO) not answered yet. A cluster client is
    // left out: 'connect' is where it may stay while its nodes serve.
    if (status === 'connect' && !this.redis.isCluster) {
      this.askedAt ||= Date.now();
      if (++this.waited > 1) this.found();
      return;
    }
    if (status !== 'ready') return;
    if (this.askedAt) {
      if (++this.waited >= this.patience) this.found();
      return;
    }
    this.askedAt = Date.now();
    // An error Redis replies is an answer; a rejection of the client's own (the request role's
    // command timeout) is none, and the next tick judges it.
    this.redis.ping().then(this.answer, (error) => {
      if (error instanceof ReplyError) this.answer();
    });
  }

  /**
   * Found silent, unless the answer is already here: after a stall of the event loop (a long GC, a
   * frozen process) timers run before what arrived meanwhile is read, so that is read first.
   */
  private found(): void {
    const since = this.askedAt;
    setImmediate(() => {
      if (this.askedAt !== since) return;
      this.leave();
      this.events.silent(since);
    });
  }

  private readonly answer = (): void => {
    this.reset();
    this.answeredAt = Date.now();
    this.events.answered();
  };

  private readonly reset = (): void => {
    this.askedAt = 0;
    this.waited = 0;
  };

  private readonly end = (): void => {
    clearInterval(this.timer);
    this.redis.off('ready', this.answer);
    this.redis.off('close', this.reset);
    this.redis.off('end', this.end);
    this.events.ended();
  };
}
