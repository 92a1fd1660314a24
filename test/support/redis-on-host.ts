import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findRedisServer, pingRedis } from '@skillrun/redis-server';
import type { Host } from './local-network';

/** The ports Redis and Sentinel have on a host of their own, as in production. */
export const REDIS_PORT = 6379;
export const SENTINEL_PORT = 26_379;

/** How long a server on a host may take to answer after it starts. */
const START_TIMEOUT_MS = 10_000;

/**
 * A redis-server on `host` (port 6379, every address), configured as the service wants it
 * (noeviction, no snapshots), with its files in `dir`; a replica of `replicaOf` when given.
 */
export async function startRedisOn(host: Host, dir: string, replicaOf?: Host): Promise<string> {
  await mkdir(dir, { recursive: true });
  host.spawn(binary(), [
    '--port',
    String(REDIS_PORT),
    '--bind',
    '0.0.0.0',
    '--protected-mode',
    'no',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--maxmemory-policy',
    'noeviction',
    ...(replicaOf ? ['--replicaof', replicaOf.address, String(REDIS_PORT)] : []),
  ]);
  const url = `redis://${host.address}:${REDIS_PORT}`;
  await answers(url);
  return url;
}

/**
 * A Redis Cluster node on `host` (port 6379, every address), as `startRedisOn`'s server, with its
 * cluster state file in `dir` (kept: a node started again there rejoins as it was). Failover after
 * `nodeTimeoutMs` of silence.
 */
export async function startClusterNodeOn(host: Host, dir: string, nodeTimeoutMs: number): Promise<string> {
  await mkdir(dir, { recursive: true });
  host.spawn(binary(), [
    ...['--port', String(REDIS_PORT), '--bind', '0.0.0.0', '--protected-mode', 'no', '--dir', dir],
    ...['--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
    ...['--cluster-enabled', 'yes', '--cluster-node-timeout', String(nodeTimeoutMs)],
  ]);
  const url = `redis://${host.address}:${REDIS_PORT}`;
  await answers(url);
  return url;
}

export interface SentinelSettings {
  /** The master group's name. */
  name: string;
  master: Host;
  /** How many Sentinels must agree the master is down. */
  quorum: number;
  /** How long the master may be silent before a Sentinel finds it down. */
  downAfterMs: number;
}

/** A Sentinel on `host` (port 26379) watching `master`; its config file (which it rewrites) in `dir`. */
export async function startSentinelOn(host: Host, dir: string, settings: SentinelSettings): Promise<string> {
  const { name, master, quorum, downAfterMs } = settings;
  await mkdir(dir, { recursive: true });
  const config = join(dir, 'sentinel.conf');
  await writeFile(
    config,
    [
      `port ${SENTINEL_PORT}`,
      'bind 0.0.0.0',
      'protected-mode no',
      `dir ${dir}`,
      `sentinel monitor ${name} ${master.address} ${REDIS_PORT} ${quorum}`,
      `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
      `sentinel failover-timeout ${name} 10000`,
      '',
    ].join('\n'),
  );
  host.spawn(binary(), [config, '--sentinel']);
  const url = `redis://${host.address}:${SENTINEL_PORT}`;
  await answers(url);
  return url;
}

function binary(): string {
  return findRedisServer() ?? 'redis-server';
}

async function answers(url: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await pingRedis(url, 200))) {
    if (Date.now() > deadline) throw new Error(`nothing answers at ${url}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
