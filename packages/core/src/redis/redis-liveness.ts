import { type Redis, type RedisOptions, ReplyError } from 'ioredis';
import type { Logger } from '../logging/create-logger';
import { MasterSwitches } from './master-switches';
import { redisAddressOf } from './redis-address';
import type { RedisNode, RedisTarget } from './redis-target';

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
 *
 * A server that answers can still be the wrong one: with Sentinels, a primary on a minority side,
 * healed after the majority promoted a replica. So while it watches connections it also listens for
 * the Sentinels' promotions (MasterSwitches), and closes every connection that is not on the
 * promoted master: ioredis asks the Sentinels again.
 */
export class RedisLiveness {
  private readonly watched = new Set<ConnectionProbe>();
  /** When the incident's line was written; unset when there is none. */
  private incidentAt: number | undefined;
  /** The Sentinels' promotions, listened to while a connection is watched (Sentinels only). */
  private switches: MasterSwitches | undefined;
  /** The promoted master last said, `host:port`: each Sentinel tells of the same promotion. */
  private saidPromoted: string | undefined;

  constructor(private readonly options: RedisLivenessOptions) {}

  /**
   * The ioredis options that go with it. Connecting, and each question to a Sentinel, wait
   * `intervalMs` at most: a server or Sentinel whose packets are dropped is given up for the next
   * (ioredis's default is 10 s). Through a failover a connection may try the old master (the
   * Sentinels name it until they promote) and a Sentinel cut off with it before it reaches the new
   * one: each such wait comes before serving again. And TCP keepalive after `intervalMs` of quiet:
   * the kernel then closes a socket whose peer is gone once its probes go unanswered (minutes with
   * Linux's defaults): a backstop should a watch stop; the PINGs are the bound.
   */
  get connectionOptions(): Pick<RedisOptions, 'connectTimeout' | 'sentinelCommandTimeout' | 'keepAlive'> {
    const { intervalMs } = this.options;
    return { connectTimeout: intervalMs, sentinelCommandTimeout: intervalMs, keepAlive: intervalMs };
  }

  /**
   * How often each connection is asked PING: a connection found silent is left within two of these.
   * The pace at which what failed with a lost connection is worth trying again: BullMQ's workers
   * wait their `runRetryDelay` (15 s by default) before fetching again after such an error, which
   * kept a worker idle that long after a failover it had already followed.
   */
  get intervalMs(): number {
    return this.options.intervalMs;
  }

  /**
   * Whether no incident is open: none found silent, or every connection has answered since (one
   * never connected, lazy, is not waited for). Meanwhile a connection's errors (each reconnect
   * attempt's) are the incident's, said once already.
   */
  get answering(): boolean {
    return this.incidentAt === undefined;
  }

  /** Watches `redis` until it ends; returns it. */
  watch<R extends Redis>(redis: R, { blocksMs = 0 }: WatchOptions = {}): R {
    if ([...this.watched].some((probe) => probe.redis === redis)) return redis;
    const probe = new ConnectionProbe(redis, 1 + Math.ceil(blocksMs / this.options.intervalMs), {
      silent: (since) => this.silent(probe, since),
      answered: () => this.answered(),
      ended: () => this.unwatch(probe),
    });
    this.watched.add(probe);
    probe.start(this.options.intervalMs);
    const { sentinels } = this.options.target;
    if (sentinels) this.switches ??= new MasterSwitches(sentinels, (master) => this.switched(master));
    return redis;
  }

  private unwatch(probe: ConnectionProbe): void {
    this.watched.delete(probe);
    if (this.watched.size > 0) return;
    this.switches?.close();
    this.switches = undefined;
  }

  /**
   * The Sentinels promoted `master`: every connection elsewhere leaves. Said once per promotion
   * (each Sentinel tells of it), unless an incident is open: its line already said that the
   * process leaves the old master.
   */
  private switched(master: RedisNode): void {
    const elsewhere = [...this.watched].filter((probe) => !probe.on(master));
    for (const probe of elsewhere) probe.leave();
    const promoted = `${master.host}:${master.port}`;
    if (elsewhere.length === 0 || this.incidentAt !== undefined || this.saidPromoted === promoted) return;
    this.saidPromoted = promoted;
    const { text } = redisAddressOf(this.options.target);
    this.options.logger?.warn(
      { redis: text, master: promoted, connections: elsewhere.length },
      `Redis at ${text} promoted ${promoted}: reconnecting`,
    );
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
    const waitedFor = [...this.watched].filter((probe) => probe.redis.status !== 'wait');
    if (waitedFor.every((probe) => probe.answeredAt > since)) this.incidentAt = undefined;
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
   * Whether it is on `node`. One not ready counts as on it: it is connecting or will, and then
   * asks the Sentinels, which name `node` by then (or say it again once they do).
   */
  on(node: RedisNode): boolean {
    const { stream } = this.redis;
    if (this.redis.status !== 'ready' || !stream) return true;
    return stream.remoteAddress === node.host && stream.remotePort === node.port;
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
