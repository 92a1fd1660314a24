import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import type { Host } from '../local-network';
import { REDIS_PORT, startClusterNodeOn } from '../redis-on-host';
import { poll } from './poll';

const run = promisify(execFile);
/** How long a node may be silent before the others fail it over. */
const NODE_TIMEOUT_MS = 1_000;
/** How long the cluster may take to be whole (every slot served, every node agreeing). */
const SETTLE_TIMEOUT_MS = 60_000;

/**
 * A Redis Cluster on six hosts: three masters, each with a replica (`redis-cli --cluster create
 * --cluster-replicas 1`). `masterOf()` names the master of a hash tag's slot: the service's global
 * keys are on `{skillrun}`'s, a sharded execution's on its vshard's (REDIS_SHARDS).
 */
export class RedisClusterGroup {
  private constructor(
    readonly hosts: readonly Host[],
    private readonly dir: string,
  ) {}

  static async start(hosts: readonly Host[], dir: string): Promise<RedisClusterGroup> {
    for (const [index, host] of hosts.entries())
      await startClusterNodeOn(host, join(dir, `node-${index}`), NODE_TIMEOUT_MS);
    const nodes = hosts.map((host) => `${host.address}:${REDIS_PORT}`);
    await run('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '1', '--cluster-yes']);
    const group = new RedisClusterGroup(hosts, dir);
    await group.settled();
    return group;
  }

  /** REDIS_CLUSTER_NODES for the service. */
  get nodes(): string {
    return this.hosts.map((host) => `${host.address}:${REDIS_PORT}`).join(',');
  }

  /**
   * The host whose node serves the slot of `tag` (a hash tag's inside, `skillrun` by default: the
   * service's global keys) now, asked of `askHost`.
   */
  async masterOf(askHost: Host, tag = 'skillrun'): Promise<Host> {
    const asked = new Redis(REDIS_PORT, askHost.address, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      const slot = Number(await asked.call('CLUSTER', 'KEYSLOT', tag));
      const ranges = (await asked.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      const host = this.hosts.find((candidate) => candidate.address === range?.[2][0]);
      if (!host) throw new Error(`no node of the cluster serves slot ${slot}`);
      return host;
    } finally {
      asked.disconnect();
    }
  }

  /** Until the slot of `tag` is served by a node other than `lost`'s, as every other node sees it. */
  async failedOver(lost: Host, timeoutMs: number, tag = 'skillrun'): Promise<void> {
    await poll(async () => {
      for (const host of this.hosts.filter((candidate) => candidate !== lost))
        if ((await this.masterOf(host, tag)) === lost) return false;
      return true;
    }, timeoutMs);
  }

  /**
   * Where an execution's keys stand on the master of `tag` now: every key naming `executionId`
   * (its record, its BullMQ job, …) with its hash fields, and each of the tag's queue lists and
   * sorted sets that holds it. For a failure's message.
   */
  async whereIs(executionId: string, tag: string): Promise<Record<string, unknown>> {
    const master = await this.masterOf(this.hosts[0] as Host, tag);
    const asked = new Redis(REDIS_PORT, master.address, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      const found: Record<string, unknown> = {};
      const keys = (await asked.keys(`{${tag}}:*`)) as string[];
      for (const key of keys) {
        const type = await asked.type(key);
        if (key.includes(executionId)) found[key] = type === 'hash' ? await asked.hgetall(key) : type;
        else if (type === 'zset' && (await asked.zscore(key, executionId)) !== null) found[key] = 'member';
        else if (type === 'list' && (await asked.lpos(key, executionId)) !== null) found[key] = 'member';
      }
      return found;
    } finally {
      asked.disconnect();
    }
  }

  /** SIGKILLs the Redis node on `host`. */
  async kill(host: Host): Promise<void> {
    for (const pid of await host.namespace.pids()) {
      const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (command.includes(`:${REDIS_PORT}`)) process.kill(pid, 'SIGKILL');
    }
  }

  /** Starts the node on `host` again from its state file (it rejoins, a replica), until the cluster is whole. */
  async restart(host: Host): Promise<void> {
    await startClusterNodeOn(host, join(this.dir, `node-${this.hosts.indexOf(host)}`), NODE_TIMEOUT_MS);
    await this.settled();
  }

  /** Until every node says the cluster is ok and knows every other node connected. */
  async settled(): Promise<void> {
    for (const host of this.hosts) {
      const asked = new Redis(REDIS_PORT, host.address, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await poll(async () => {
          const info = String(await asked.call('CLUSTER', 'INFO'));
          const nodes = String(await asked.call('CLUSTER', 'NODES'))
            .trim()
            .split('\n');
          return (
            info.includes('cluster_state:ok') &&
            nodes.length === this.hosts.length &&
            nodes.every((line) => line.includes(' connected') && !line.includes('fail'))
          );
        }, SETTLE_TIMEOUT_MS);
      } finally {
        asked.disconnect();
      }
    }
  }
}
