import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShardMap } from '@skillrun/core/data';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultRow, faultTable, summaryLine } from '../support/fault-harness/fault-table';
import {
  cutWorkerOfNextRun,
  harnessLoad,
  isolate,
  MINORITY_AFTER_PROMOTION_MS,
  SERVE_AGAIN_MS,
  WORKER_ENV,
} from '../support/fault-harness/harness-faults';
import { History } from '../support/fault-harness/history';
import { poll } from '../support/fault-harness/poll';
import { RedisClusterGroup } from '../support/fault-harness/redis-cluster-group';
import { servedAgain } from '../support/fault-harness/served-again';
import { ServiceLogs } from '../support/fault-harness/service-logs';
import { gatewayUrl, startGatewayOn, startWorkerOn } from '../support/fault-harness/service-on-host';
import { readFinals, StatusSampler } from '../support/fault-harness/status-reader';
import { type Host, LocalNetwork } from '../support/local-network';
import { NetworkNamespace } from '../support/network-namespace';
import type { ServiceProcess } from '../support/service-process';

// The fault harness's second scenario (issue 37): a Redis Cluster of three masters, each with a
// replica, on hosts of their own (network namespaces on one bridge), two gateways and three workers
// following it (REDIS_CLUSTER_NODES) with executions sharded over it (REDIS_SHARDS=3: each master
// holds one vshard's executions, and one of them also the `{skillrun}` slot's global keys), a steady
// load from this process. One fault at a time: the master of a vshard alone killed (SIGKILL), then
// the master of the global slot, each promoted over by its replica and started again (as a
// supervisor would); a worker's host cut off mid-run and healed; a master isolated together with
// gateway A (the minority side) until its replica is promoted, then healed; gateway A restarted.
// With ACK_REPLICAS=1 (WAIT on every master's connection, each master's one replica: the one the
// cluster promotes), checked: no acknowledged execution lost, statuses never backwards and one
// final each, serving again within the bound after each fault through both gateways, acknowledged
// executions on every vshard, every refusal a 503 with Retry-After, no body run more than twice,
// gateway A's stop a clean one (not its deadline's exit), the workers' stops at the end none that
// waits out its grace period.
// Skipped where a namespace cannot be made (not root, no `ip netns`).

/** How long the cluster may take to promote a replica (node timeout 1 s, then its vote). */
const FAILOVER_TIMEOUT_MS = 30_000;
const SHARDS = 3;

describe.skipIf(!NetworkNamespace.available())('fault harness: a Redis Cluster under load', () => {
  let network: LocalNetwork;
  let dir: string;
  let log: string;
  let cluster: RedisClusterGroup;
  let gatewayHosts: [Host, Host];
  let workerHosts: Host[];
  let env: Record<string, string>;
  const logs = new ServiceLogs();
  const gateways: ServiceProcess[] = [];
  const workers: ServiceProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillrun-fault-cluster-'));
    log = join(dir, 'runs.log');
    network = await LocalNetwork.create();
    const nodeHosts: Host[] = [];
    for (let number = 31; number <= 36; number++) nodeHosts.push(await network.host(number));
    gatewayHosts = [await network.host(11), await network.host(12)];
    workerHosts = [await network.host(21), await network.host(22), await network.host(23)];
    cluster = await RedisClusterGroup.start(nodeHosts, dir);
    env = {
      // REDIS_URL's host is never contacted: the cluster's nodes are.
      REDIS_URL: 'redis://nowhere.invalid:6379',
      REDIS_CLUSTER_NODES: cluster.nodes,
      REDIS_SHARDS: String(SHARDS),
      ACK_REPLICAS: '1',
      HEARTBEAT_INTERVAL_MS: '500',
      SKILL_CACHE_MS: '0',
    };
    const started = await Promise.all([
      ...gatewayHosts.map(async (host, index) =>
        logs.add(`gateway ${'AB'[index]}`, await startGatewayOn(host, env)),
      ),
      ...workerHosts.map(async (host, index) =>
        logs.add(`worker w${index}`, await startWorkerOn(host, `w${index}`, { ...env, ...WORKER_ENV })),
      ),
    ]);
    gateways.push(...started.slice(0, 2));
    workers.push(...started.slice(2));
  }, 300_000);

  afterAll(async () => {
    if (process.env.FAULT_HARNESS_LOGS) await logs.save(join(process.env.FAULT_HARNESS_LOGS, 'cluster'));
    await Promise.all([...gateways, ...workers].map((service) => service.stop()));
    await network?.delete();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /**
   * Until an invocation through each gateway is acknowledged and completes, bounded from `since`:
   * when the cluster is whole again (every master has its replica, without which WAIT confirms
   * nothing), the event serving waits on; how long the cluster takes to get there is its own.
   * Returns the ms from `faultAt` (the slower gateway).
   */
  const servedAgainThroughBoth = async (faultAt: number, since: number): Promise<number> => {
    let slowest = 0;
    for (const host of gatewayHosts)
      slowest = Math.max(
        slowest,
        await servedAgain({ url: gatewayUrl(host), log, since, boundMs: SERVE_AGAIN_MS, logs }),
      );
    return since - faultAt + slowest;
  };

  /**
   * Kills the master of `tag`'s slot and, once its replica serves the slot, starts it again (as a
   * supervisor would: with ACK_REPLICAS=1 the promoted master confirms nothing until it has a
   * replica again); resolves when both gateways serve again, with the ms since the kill.
   */
  const killMasterOf = async (tag: string): Promise<number> => {
    const master = await cluster.masterOf(cluster.hosts[0] as Host, tag);
    const killedAt = Date.now();
    await cluster.kill(master);
    await cluster.failedOver(master, FAILOVER_TIMEOUT_MS, tag);
    await cluster.restart(master);
    return servedAgainThroughBoth(killedAt, Date.now());
  };

  it('ACK_REPLICAS=1, one fault at a time: nothing acknowledged gone, statuses never backwards, serves again after each', async () => {
    const history = new History();
    const load = harnessLoad(gatewayHosts, log, history);
    const sampler = new StatusSampler(gatewayUrl(gatewayHosts[1]), history);
    const windows: { fault: string; from: number; to: number; serveAgainMs: number }[] = [];
    let from = Date.now();
    let restartedExit: number | null | undefined;
    const row = (fault: string, serveAgainMs: number) => {
      const to = Date.now();
      windows.push({ fault, from, to, serveAgainMs });
      from = to;
    };
    const shards = new ShardMap('{skillrun}', SHARDS);
    const globalMaster = await cluster.masterOf(cluster.hosts[0] as Host);
    // The inside of a vshard's tag (`{skillrun:j}`) whose master holds no global key.
    let shardTag = '';
    for (const tag of shards.tags().slice(1)) {
      const inner = tag.slice(1, -1);
      if ((await cluster.masterOf(cluster.hosts[0] as Host, inner)) !== globalMaster) shardTag = inner;
    }
    expect(shardTag).not.toBe('');
    try {
      await poll(async () => history.acknowledged().length >= 20, 60_000);

      // (1) The master of a vshard alone killed: only that shard's executions are on it.
      row(`master of one vshard (\`{${shardTag}}\`) killed (SIGKILL)`, await killMasterOf(shardTag));

      // (2) The master of the global slot killed: keys, indexes and limits are on it.
      row('master of the `{skillrun}` slot killed (SIGKILL)', await killMasterOf('skillrun'));

      // (3) The host of the worker that starts the next body cut off, then healed.
      row('a worker cut off mid-run, healed', await cutWorkerOfNextRun(workerHosts, log, logs));

      // (4) A vshard's master isolated together with gateway A (the minority side): the majority
      // promotes its replica; healed, the old master rejoins as a replica and gateway A follows.
      const isolated = await cluster.masterOf(cluster.hosts[0] as Host, shardTag);
      const heal = await isolate(
        [isolated, gatewayHosts[0]],
        [...cluster.hosts, ...gatewayHosts, ...workerHosts],
      );
      await cluster.failedOver(isolated, FAILOVER_TIMEOUT_MS, shardTag);
      await new Promise((resolve) => setTimeout(resolve, MINORITY_AFTER_PROMOTION_MS));
      await heal();
      const healedAt = Date.now();
      await cluster.settled();
      const minorityServed = await servedAgainThroughBoth(healedAt, Date.now());
      row('a vshard master + gateway A isolated (minority), healed', minorityServed);

      // (5) Gateway A restarted (SIGTERM, started again on its host).
      const restartedAt = Date.now();
      restartedExit = await gateways[0]?.stop();
      gateways[0] = logs.add('gateway A (restarted)', await startGatewayOn(gatewayHosts[0], env));
      const listeningAt = Date.now();
      const restartServed = await servedAgain({
        url: gatewayUrl(gatewayHosts[0]),
        log,
        since: listeningAt,
        boundMs: SERVE_AGAIN_MS,
        logs,
      });
      row('gateway A restarted (SIGTERM)', listeningAt - restartedAt + restartServed);
    } finally {
      await load.stop();
      await sampler.stop();
    }
    await readFinals(gatewayUrl(gatewayHosts[1]), history, 60_000);
    await history.readRuns(log);
    const rows = windows.map((window) =>
      faultRow(history, `cluster: ${window.fault}`, 1, window, window.serveAgainMs),
    );
    console.log(`fault harness, Redis Cluster (REDIS_SHARDS=${SHARDS}):\n${faultTable(rows)}`);
    console.log(summaryLine('cluster', history));

    // Gateway A, once on the minority side, stopped cleanly: not by its stop deadline (exit 1).
    expect(restartedExit, 'gateway A exited by its stop deadline').toBe(0);
    const acknowledged = history.acknowledged();
    expect(acknowledged.length).toBeGreaterThan(0);
    const lost = history
      .lost(acknowledged)
      .map((id) => ({ id, final: history.finals.get(id), sampled: history.sampled.get(id) }));
    // None gone, and none left unended: an execution still not ended when the finals were read is
    // told with where it stands on its master (its keys, and the queue lists and sets holding it).
    const lostWhere = [];
    for (const one of lost) {
      const tag = shards.tagOf(one.id).slice(1, -1);
      lostWhere.push({
        ...one,
        keys: await cluster.whereIs(one.id, tag).catch((error: Error) => error.message),
      });
    }
    expect(lostWhere).toEqual([]);
    // One read back to an earlier status says which fault's window (epoch ms) it was read in.
    expect(history.backwards(), JSON.stringify(windows)).toEqual([]);
    // Spread: acknowledged executions on every active vshard.
    expect(new Set(acknowledged.map((id) => shards.vshardOf(id))).size).toBe(SHARDS);
    expect(history.duplicated(acknowledged).filter((id) => (history.runs.get(id)?.length ?? 0) > 2)).toEqual(
      [],
    );
    // Every refusal a 503 with Retry-After; a 500 (a fault of the gateway's own) shows what the gateways logged of it.
    expect(history.unexpected(), logs.unhandled()).toEqual([]);
    // Every execution has ended, so a worker stopped now has nothing running and waits out no grace
    // period (a wait for BullMQ's marker that never settled once the stop had ended its connection
    // held two workers' stops for their whole grace in one run out of three).
    await Promise.all(workers.map((worker) => worker.stop()));
    const graceOver = workers.flatMap((worker) =>
      worker.logs.filter((line) => line.msg?.startsWith('grace period over')),
    );
    expect(graceOver).toEqual([]);
  }, 600_000);
});
