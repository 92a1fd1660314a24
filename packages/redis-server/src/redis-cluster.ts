import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './free-port';
import { commandCalls, redisCpuUs, redisReads } from './redis-info';
import { RedisServerProcess } from './redis-server-process';

const LAST_SLOT = 16_383;

export interface ClusterOptions {
  masters: number;
  /** Replicas per master (none by default). */
  replicas?: 0 | 1;
}

export interface ClusterNode {
  url: string;
  port: number;
  role: 'master' | 'replica';
  /** The hash slots it serves, as inclusive [first, last] ranges (none for a replica). */
  slots: [number, number][];
}

/** What one master has done since it started. */
export interface NodeStats {
  port: number;
  /** Commands it ran, those Lua scripts called included (the INFO and CONFIG it was asked left out). */
  commands: number;
  /** The same, by command (lower case, as INFO commandstats names them). */
  calls: Map<string, number>;
  /** CPU time it has used (user + system), in µs. */
  cpuUs: number;
  /** Reads of its clients' sockets (the INFO it was asked included). */
  reads: number;
}

/** A Redis Cluster of its owner's own (a test's, the bench's): redis-server children on free ports, their files in a temporary folder. */
export interface RedisCluster {
  nodes: ClusterNode[];
  /** Every node as `host:port,…`: a REDIS_CLUSTER_NODES value. */
  nodesUrl: string;
  /** The settings that point a gateway or worker at the cluster. */
  env: { REDIS_URL: string; REDIS_CLUSTER_NODES: string };
  /** The master serving `key`'s hash slot. */
  masterOf(key: string): Promise<ClusterNode>;
  /** Per master, in `nodes` order. */
  nodeStats(): Promise<NodeStats[]>;
  /** Stops every node and removes their folder. */
  stop(): Promise<void>;
}

/**
 * Starts `masters` × (1 + `replicas`) nodes and makes them one cluster, slots split evenly over the
 * masters as `redis-cli --cluster create` splits them (which refuses fewer than three masters: a
 * lone one is given every slot itself); resolves once every node says `cluster_state:ok` and every replica has synced with its master.
 */
export async function startCluster({ masters, replicas = 0 }: ClusterOptions): Promise<RedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'skillrun-cluster-'));
  const servers: RedisServerProcess[] = [];
  const admins: Redis[] = [];
  const stop = async () => {
    for (const admin of admins) admin.disconnect();
    await Promise.all(servers.map((server) => server.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let started = 0; started < masters * (1 + replicas); started++) {
      const { port, busPort } = await twoFreePorts();
      servers.push(await RedisServerProcess.start({ port, dir, appendOnly: false, cluster: { busPort } }));
      admins.push(new Redis(port, '127.0.0.1'));
    }
    await formCluster(servers, admins, replicas);
    await Promise.all(admins.map(untilClusterOk));
    const nodes = await Promise.all(servers.map((server, i) => ownView(server, admins[i] as Redis)));
    const nodesUrl = servers.map((server) => `127.0.0.1:${server.port}`).join(',');
    return {
      nodes,
      nodesUrl,
      // REDIS_URL's host is never contacted: the cluster's nodes are.
      env: { REDIS_URL: 'redis://nowhere.invalid:6379', REDIS_CLUSTER_NODES: nodesUrl },
      masterOf: async (key) => {
        const slot = Number(await (admins[0] as Redis).call('CLUSTER', 'KEYSLOT', key));
        const master = nodes.find((node) =>
          node.slots.some(([first, last]) => first <= slot && slot <= last),
        );
        if (!master) throw new Error(`no master serves slot ${slot}`);
        return master;
      },
      nodeStats: () =>
        Promise.all(
          nodes.flatMap((node, i) =>
            node.role === 'master' ? [statsOf(node.port, admins[i] as Redis)] : [],
          ),
        ),
      stop,
    };
  } catch (error) {
    // Started in part: nothing is left running.
    await stop();
    throw error;
  }
}

/** A port for clients and one for the cluster bus (not port + 10000, which may be taken or past 65535). */
async function twoFreePorts(): Promise<{ port: number; busPort: number }> {
  for (;;) {
    const [port, busPort] = [await freePort(), await freePort()];
    if (port !== busPort) return { port, busPort };
  }
}

async function formCluster(servers: RedisServerProcess[], admins: Redis[], replicas: number): Promise<void> {
  const [lone] = admins;
  if (admins.length === 1 && lone) {
    await lone.call('CLUSTER', 'ADDSLOTSRANGE', '0', String(LAST_SLOT));
    return;
  }
  const addresses = servers.map((server) => `127.0.0.1:${server.port}`);
  await promisify(execFile)('redis-cli', [
    ...['--cluster', 'create', ...addresses],
    ...['--cluster-replicas', String(replicas), '--cluster-yes'],
  ]);
}

/** Until the node sees the cluster ok and, a replica, has its master's data (its link up). */
async function untilClusterOk(admin: Redis): Promise<void> {
  const deadline = Date.now() + 20_000;
  const ready = async () => {
    if (!String(await admin.call('CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
    const replication = await admin.info('replication');
    return replication.includes('role:master') || replication.includes('master_link_status:up');
  };
  while (!(await ready())) {
    if (Date.now() > deadline)
      throw new Error(`the node on ${admin.options.port} did not see the cluster ok, or its master`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The node as it sees itself (the `myself` line of CLUSTER NODES: what others see may lag behind). */
async function ownView(server: RedisServerProcess, admin: Redis): Promise<ClusterNode> {
  const lines = String(await admin.call('CLUSTER', 'NODES')).split('\n');
  const fields = lines.find((line) => line.split(' ')[2]?.split(',').includes('myself'))?.split(' ') ?? [];
  const role = fields[2]?.split(',').includes('master') ? 'master' : 'replica';
  // Fields 8 on: `first-last` or a lone slot; `[…]` entries are slots being migrated.
  const slots = fields
    .slice(8)
    .filter((entry) => /^\d/.test(entry))
    .map((entry): [number, number] => {
      const [first, last = first] = entry.split('-').map(Number) as [number, number?];
      return [first, last];
    });
  return { url: server.url, port: server.port, role, slots };
}

async function statsOf(port: number, admin: Redis): Promise<NodeStats> {
  const calls = await commandCalls(admin);
  let commands = 0;
  for (const count of calls.values()) commands += count;
  return { port, commands, calls, cpuUs: await redisCpuUs(admin), reads: await redisReads(admin) };
}
