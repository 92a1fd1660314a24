import type { RedisNode, RedisTarget } from './redis-target';

/** Where a target says Redis is, as an operator reads it in a log line, and the setting that says it. */
export interface RedisAddress {
  /** REDIS_URL without its password, or the Sentinels or cluster nodes it names. */
  text: string;
  /** The setting to change to reach another Redis. */
  setting: 'REDIS_URL' | 'REDIS_SENTINELS' | 'REDIS_CLUSTER_NODES';
}

export function redisAddressOf(target: RedisTarget): RedisAddress {
  if (target.cluster) {
    return { text: `cluster nodes ${nodeList(target.cluster.nodes)}`, setting: 'REDIS_CLUSTER_NODES' };
  }
  if (target.sentinels) {
    const { nodes, name } = target.sentinels;
    return { text: `Sentinels ${nodeList(nodes)} (master "${name}")`, setting: 'REDIS_SENTINELS' };
  }
  return { text: withoutPassword(target.url), setting: 'REDIS_URL' };
}

/** The URL with `***` for its password: a log line says that there is one, never what it is. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not a URL this reads: none of it is shown, rather than a password.
    return 'REDIS_URL (not a URL)';
  }
}

function nodeList(nodes: RedisNode[]): string {
  return nodes.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(',');
}
