import type { Cluster, Redis } from 'ioredis';

export interface ReplicaAckOptions {
  /** How many replicas must hold a write before it is confirmed (ACK_REPLICAS); 0 confirms at once. */
  replicas: number;
  /** How long Redis waits for them (ACK_TIMEOUT_MS). */
  timeoutMs: number;
  /**
   * The keys `confirmRead` writes its probe to, one in each hash tag the service's keys are under
   * (on a cluster, so that every master holding them gets one); needed with replicas.
   */
  probeKeys?: readonly string[];
}

/**
 * Confirms that what was written on `redis` is on enough replicas to outlive a failover (Redis
 * WAIT), for the writes a `202` stands for. WAIT counts the writes of the connection it is sent on,
 * so it goes down the one that wrote them. Confirmations share one WAIT at a time: one asked while
 * another is out joins the next, sent once that one is answered, which covers every write answered
 * before it. A connection is then never held by more than one WAIT, however many callers ask: a
 * command behind it waits `timeoutMs` at most (a WAIT blocks its connection until it is answered).
 *
 * WAIT counts only what its own connection wrote: one answered after a reconnect (ioredis sends
 * again what was out when a connection closed, and a connection leaves a demoted master when the
 * Sentinels announce a promotion) knows nothing of the writes made before, and answers at once
 * that every replica has them. So a confirmation holds only within one connection's life: writes
 * are confirmed against the `session` taken before they were sent.
 */
export class ReplicaAck {
  /** The WAIT out now, if any. */
  private out: Promise<boolean> = Promise.resolve(true);
  /** The next WAIT, which confirmations asked now share. */
  private next: Promise<boolean> | undefined;
  /** How many times the connection has closed: each life of it is a session. */
  private closes = 0;

  constructor(
    readonly redis: Redis,
    private readonly options: ReplicaAckOptions,
  ) {
    if (!this.required) return;
    const counted = (connection: Redis) =>
      connection.on('close', () => {
        this.closes += 1;
      });
    const cluster = clusterOf(redis);
    if (!cluster) {
      counted(redis);
      return;
    }
    // A cluster client has a connection per node (Cluster#nodes), each its own life.
    for (const node of cluster.nodes()) counted(node);
    cluster.on('+node', counted);
  }

  /** The connection's life now: take it before sending the writes to confirm with `confirm`. */
  get session(): number {
    return this.closes;
  }

  /** Whether writes wait for replicas at all (ACK_REPLICAS > 0). */
  get required(): boolean {
    return this.options.replicas > 0;
  }

  /**
   * How long a job launched under this confirmation is held back (delayed) before any worker may
   * take it, so that a launch not confirmed is withdrawn before it runs: its confirmation may wait
   * for two WAITs, and each of the few questions that withdraw it for one more (while a replica is
   * away every WAIT takes `timeoutMs`). A confirmed one is let go at once; one whose release is lost
   * (a failover just then) starts when its hold ends.
   */
  get holdMs(): number {
    return 8 * this.options.timeoutMs;
  }

  /**
   * Resolves true once the writes sent since `session` are on the replicas; false when they are not
   * within `timeoutMs`, or the connection closed meanwhile (what it wrote before may be on no
   * replica, or only on a master since demoted). Never rejects.
   */
  confirm(session: number): Promise<boolean> {
    if (!this.required) return Promise.resolve(true);
    this.next ??= this.out.then(() => {
      this.next = undefined;
      this.out = this.ask();
      return this.out;
    });
    return this.next.then((confirmed) => confirmed && this.closes === session);
  }

  /**
   * Resolves true once what this process read from the master since `session` is on the replicas
   * too, so that telling it is not undone by a failover: an execution's end, which a worker writes
   * without waiting for replicas, is lost with a master the replicas lagged behind, and the
   * execution runs again. A probe written after the reads stands behind them in the master's
   * replication stream, which replicas apply in order: its WAIT covers them. That holds only while
   * the probe goes to the master the reads came from: `session` is taken before the reads, so a
   * master that died after them (its connection closed, the probe then landing on the promoted
   * one, which never had what was read) refuses the confirmation. Each call writes its own probe
   * (one INCR); their WAITs are shared as `confirm`'s are. Never rejects.
   */
  async confirmRead(session: number): Promise<boolean> {
    if (!this.required) return true;
    const { probeKeys } = this.options;
    if (!probeKeys?.length) throw new Error('ReplicaAck: confirmRead needs probeKeys');
    try {
      await Promise.all(probeKeys.map((key) => this.redis.incr(key)));
    } catch {
      return false;
    }
    return this.confirm(session);
  }

  private async ask(): Promise<boolean> {
    const { replicas, timeoutMs } = this.options;
    try {
      const counts = await Promise.all(this.masters().map((master) => master.wait(replicas, timeoutMs)));
      return counts.every((count) => count >= replicas);
    } catch {
      return false;
    }
  }

  /**
   * Where WAIT goes: the connection, or on a cluster every master's connection (Cluster#nodes: the
   * ones its commands go down), since WAIT counts one connection's writes and a launch writes on two
   * masters (its vshard's and the global tag's). A master the writes did not touch answers at once
   * while its replicas are there, and refuses (times out) while they are not: stricter than needed,
   * never looser.
   */
  private masters(): Redis[] {
    return clusterOf(this.redis)?.nodes('master') ?? [this.redis];
  }
}

/** `redis` as the cluster client it is (createRedis types both as Redis), or undefined. */
function clusterOf(redis: Redis): Cluster | undefined {
  return redis.isCluster ? (redis as unknown as Cluster) : undefined;
}
