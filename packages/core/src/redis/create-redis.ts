import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisLiveness } from './redis-liveness';
import type { RedisNode, RedisTarget } from './redis-target';

export interface RedisConnectionOptions {
  /** `request` connections fail fast (HTTP handlers); `queue` connections wait out outages (workers). */
  role: 'request' | 'queue';
  /** For `request` connections: how long one command may take before it fails. */
  commandTimeoutMs?: number;
  /** Watches the connection for a Redis that stopped answering, and bounds connecting likewise. */
  liveness?: RedisLiveness;
  /**
   * On a cluster, whether a command a lost connection or a cluster down refused is answered to its
   * caller (an error saying Redis is away) rather than sent again by the client (the default). The
   * client sends each such command again on its own, to a random master that runs it or redirects
   * it, so two sent in one order may run in the other: for a connection whose caller sends again
   * itself what must stay in order (the worker's: a job's outcome, then BullMQ's end of the job).
   */
  callerRetries?: boolean;
}

/** The ioredis options that reach a target: one server, or the master its Sentinels name. */
export function targetOptions(target: RedisTarget): RedisOptions {
  const { url, sentinels } = target;
  if (!sentinels) return {};
  return {
    sentinels: sentinels.nodes,
    name: sentinels.name,
    ...(sentinels.password === undefined ? {} : { sentinelPassword: sentinels.password }),
    // rediss:// in REDIS_URL: the master is reached over TLS, as it would be directly.
    enableTLSForSentinelMode: url.startsWith('rediss://'),
  };
}

/**
 * ioredis connections configured the way BullMQ's production guide asks for each role, to one
 * server (a URL) or to the master a set of Sentinels names (ioredis follows failovers).
 */
export function createRedis(
  target: RedisTarget | string,
  { role, commandTimeoutMs = 800, liveness, callerRetries = false }: RedisConnectionOptions,
): Redis {
  const resolved = typeof target === 'string' ? { url: target } : target;
  const common: RedisOptions = {
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2000),
    lazyConnect: false,
    ...(liveness ? liveness.connectionOptions : {}),
    ...targetOptions(resolved),
  };
  const options: RedisOptions =
    role === 'request'
      ? { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: commandTimeoutMs }
      : { ...common, maxRetriesPerRequest: null, enableOfflineQueue: true };
  const redis = resolved.cluster
    ? clusterClient(resolved.url, resolved.cluster.nodes, options, callerRetries)
    : liveness
      ? new WatchedRedis(resolved.url, options, liveness)
      : new Redis(resolved.url, options);
  // Connection errors are expected while Redis is away; readiness checks report them.
  redis.on('error', () => {});
  return liveness ? liveness.watch(redis) : redis;
}

/**
 * The longest a command blocks on a duplicate: BullMQ's job fetch (BZPOPMIN) waits 10 s at most, the
 * change feed's XREAD 5 s. A duplicate's PING may wait that long behind it.
 */
const LONGEST_BLOCK_MS = 10_000;

/**
 * A connection whose duplicates (subscribers, blocking readers: ours, and those BullMQ opens from
 * the connection it is given) are watched by its liveness check, as it is.
 */
class WatchedRedis extends Redis {
  constructor(
    url: string,
    options: RedisOptions,
    private readonly liveness: RedisLiveness,
  ) {
    super(url, options);
  }

  override duplicate(override?: Partial<RedisOptions>): Redis {
    return this.liveness.watch(super.duplicate(override), { blocksMs: LONGEST_BLOCK_MS });
  }
}

/**
 * A Redis Cluster client. Every key of the service and of BullMQ carries KEY_PREFIX's hash tag, so
 * all of them, and every script's keys, live in one slot: the cluster client then serves the same
 * commands as a single server, which is why it is typed as one.
 */
function clusterClient(
  url: string,
  nodes: RedisNode[],
  options: RedisOptions,
  callerRetries: boolean,
): Redis {
  const { username, password, protocol } = new URL(url);
  const { enableOfflineQueue, retryStrategy, ...perNode } = options;
  const cluster = new Cluster(nodes, {
    enableOfflineQueue: enableOfflineQueue ?? true,
    ...(retryStrategy ? { clusterRetryStrategy: retryStrategy } : {}),
    // 0 turns the client's own sending again off (ioredis' ClusterOptions).
    ...(callerRetries ? { retryDelayOnFailover: 0, retryDelayOnClusterDown: 0 } : {}),
    redisOptions: {
      ...perNode,
      ...(username ? { username: decodeURIComponent(username) } : {}),
      ...(password ? { password: decodeURIComponent(password) } : {}),
      ...(protocol === 'rediss:' ? { tls: {} } : {}),
    },
  });
  return cluster as unknown as Redis;
}
