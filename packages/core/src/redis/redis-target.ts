import { ConfigError } from '../config/parse-env';

export interface RedisNode {
  host: string;
  port: number;
}

/**
 * Where Redis is: one server at `url`, or, with `sentinels`, whichever server the Sentinels name
 * master of the group (`url` then gives only the user, password, database and TLS). Plain data,
 * so it can be handed to a worker thread.
 */
export interface RedisTarget {
  url: string;
  sentinels?: { nodes: RedisNode[]; name: string; password?: string };
  /** Seed nodes of a Redis Cluster (every key of the service lives in KEY_PREFIX's hash slot). */
  cluster?: { nodes: RedisNode[] };
}

/** The settings a RedisTarget is read from (CommonConfig). */
export interface RedisSettings {
  REDIS_URL: string;
  REDIS_SENTINELS?: string | undefined;
  REDIS_SENTINEL_NAME?: string | undefined;
  REDIS_SENTINEL_PASSWORD?: string | undefined;
  REDIS_CLUSTER_NODES?: string | undefined;
}

/** The target the settings describe; a ConfigError names the setting that is wrong. */
export function redisTargetOf(settings: RedisSettings): RedisTarget {
  const { REDIS_URL: url, REDIS_SENTINELS, REDIS_SENTINEL_NAME, REDIS_SENTINEL_PASSWORD } = settings;
  if (settings.REDIS_CLUSTER_NODES !== undefined) {
    if (REDIS_SENTINELS !== undefined) {
      throw new ConfigError('REDIS_CLUSTER_NODES and REDIS_SENTINELS exclude each other: set one');
    }
    return { url, cluster: { nodes: parseRedisNodes(settings.REDIS_CLUSTER_NODES, 'REDIS_CLUSTER_NODES') } };
  }
  if (REDIS_SENTINELS === undefined) {
    if (REDIS_SENTINEL_NAME !== undefined || REDIS_SENTINEL_PASSWORD !== undefined) {
      throw new ConfigError('REDIS_SENTINEL_NAME and REDIS_SENTINEL_PASSWORD need REDIS_SENTINELS');
    }
    return { url };
  }
  if (REDIS_SENTINEL_NAME === undefined) {
    throw new ConfigError('REDIS_SENTINELS needs REDIS_SENTINEL_NAME, the master group the Sentinels watch');
  }
  return {
    url,
    sentinels: {
      nodes: parseRedisNodes(REDIS_SENTINELS, 'REDIS_SENTINELS'),
      name: REDIS_SENTINEL_NAME,
      ...(REDIS_SENTINEL_PASSWORD === undefined ? {} : { password: REDIS_SENTINEL_PASSWORD }),
    },
  };
}

/** `host:port,host:port` (an IPv6 host in brackets: `[::1]:26379`) as nodes. */
export function parseRedisNodes(list: string, setting: string): RedisNode[] {
  return list.split(',').map((entry) => {
    const match = /^(\[[^\]]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match?.[1] || port < 1 || port > 65_535) {
      throw new ConfigError(`${setting}: "${entry}" is not host:port (port 1-65535)`);
    }
    return { host: match[1].replace(/^\[|\]$/g, ''), port };
  });
}
