import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isTerminalStatus } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultRow, faultRow, faultTable, summaryLine } from '../support/fault-harness/fault-table';
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
import { RedisGroup } from '../support/fault-harness/redis-group';
import { servedAgain as servedAgainThrough } from '../support/fault-harness/served-again';
import { ServiceLogs } from '../support/fault-harness/service-logs';
import { gatewayUrl, startGatewayOn, startWorkerOn } from '../support/fault-harness/service-on-host';
import { readFinals, StatusSampler } from '../support/fault-harness/status-reader';
import { type Host, LocalNetwork } from '../support/local-network';
import { NetworkNamespace } from '../support/network-namespace';
import type { ServiceProcess } from '../support/service-process';

// Issue 37's multi-host fault harness. Hosts of their own (network namespaces on one bridge): Redis
// primary and two replicas, three Sentinels (on two of the Redis hosts and a host of its own), two
// gateways and three workers, each on its own host; the load comes from this process, over the bridge. Under a
// steady load it injects one fault at a time: the primary killed (SIGKILL), a worker's host cut off
// just after a body started on it and healed, the primary isolated with one gateway (the minority
// side) and healed, a gateway restarted. It records every invocation and answer, samples statuses
// while it runs, reads every acknowledged execution's final status after, and counts each body's
// runs (the `recorded` skill appends a line per run to a file: the namespaces share the filesystem).
// With ACK_REPLICAS=2, every replica (a launch confirmed on fewer may be lost: the Sentinels may
// promote a replica that did not confirm it, see ReplicaCoverage), it checks: no acknowledged execution lost, a body run twice only where its
// worker was cut off, statuses never backwards and one final each, every refusal a 503 with
// Retry-After, serving again within a bound after each fault. Then, with ACK_REPLICAS=0, it kills the
// primary once more and prints how many acknowledged executions that lost (not asserted; only with
// FAULT_HARNESS_LOSSES=1, as `npm run test:harness` and the fault loop run it). Each
// fault's row is printed (docs/reliability.md holds the last run's table). Skipped where a
// namespace cannot be made (not root, no `ip netns`).

const GROUP = 'harness';
/** How long before a fault's window a body may have started and still be under way when it strikes. */
const RUN_SLACK_MS = 2_000;
/** How long the replica lags behind a cut link before the primary's is cut too (issue 37's 2.5 s). */
const REPLICA_LAG_MS = 2_500;
/**
 * ACK_REPLICAS for the durable half: every replica of the group, the only setting under which a
 * confirmed launch is on whichever replica the Sentinels promote (docs/reliability.md).
 */
const DURABLE_ACK = 2;
/**
 * Whether the ACK_REPLICAS=0 half runs: it asserts nothing a landing depends on (what it prints is
 * the loss the durable half prevents), so `npm test` leaves it to `npm run test:harness` and the
 * fault loop, which set FAULT_HARNESS_LOSSES=1.
 */
const REPORT_LOSSES = process.env.FAULT_HARNESS_LOSSES === '1';

describe.skipIf(!NetworkNamespace.available())(
  'fault harness: hosts, steady load, one fault at a time',
  () => {
    let network: LocalNetwork;
    let dir: string;
    let log: string;
    let group: RedisGroup;
    let gatewayHosts: [Host, Host];
    let gateways: [ServiceProcess, ServiceProcess];
    let workerHosts: Host[];
    const workers: ServiceProcess[] = [];
    const rows: FaultRow[] = [];
    const logs = new ServiceLogs();
    /** Whether the faults' run got as far as reading every final status and run (what lost and twice are judged on). */
    let finalsRead = false;
    const durable = new History();
    /**
     * Each fault's window, from the end of the one before, and whether it takes Redis away from the
     * workers' running bodies (a worker cut off, or its master gone until it follows the promotion):
     * a body whose end could not be written then may run again (at-least-once), and only then.
     */
    const windows: { fault: string; from: number; to: number; serveAgainMs: number; atLeastOnce: boolean }[] =
      [];

    const serviceEnv = (ackReplicas: number) => ({
      REDIS_SENTINELS: group.sentinels,
      REDIS_SENTINEL_NAME: GROUP,
      ACK_REPLICAS: String(ackReplicas),
      HEARTBEAT_INTERVAL_MS: '500',
      SKILL_CACHE_MS: '0',
    });

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'skillrun-fault-harness-'));
      log = join(dir, 'runs.log');
      network = await LocalNetwork.create();
      const [one, two, three, four] = [
        await network.host(1),
        await network.host(2),
        await network.host(3),
        await network.host(4),
      ];
      gatewayHosts = [await network.host(11), await network.host(12)];
      workerHosts = [await network.host(21), await network.host(22), await network.host(23)];
      group = await RedisGroup.start(GROUP, [one, two, four], [one, two, three], dir);
      const started = await Promise.all([
        ...gatewayHosts.map(async (host, index) =>
          logs.add(`gateway ${'AB'[index]}`, await startGatewayOn(host, serviceEnv(DURABLE_ACK))),
        ),
        ...workerHosts.map(async (host, index) =>
          logs.add(
            `worker w${index}`,
            await startWorkerOn(host, `w${index}`, { ...serviceEnv(DURABLE_ACK), ...WORKER_ENV }),
          ),
        ),
      ]);
      gateways = [started[0] as ServiceProcess, started[1] as ServiceProcess];
      workers.push(...started.slice(2));
    }, 300_000);

    afterAll(async () => {
      console.log(`fault harness:\n${faultTable(rows)}`);
      // Where to keep every process's lines, to read a run afterwards.
      if (process.env.FAULT_HARNESS_LOGS) await logs.save(process.env.FAULT_HARNESS_LOGS);
      await Promise.all([...(gateways ?? []), ...workers].map((service) => service.stop()));
      group?.close();
      await network?.delete();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    /** Until an invocation through `host`'s gateway is acknowledged and completes; ms since `since`. */
    const servedAgain = (host: Host, since: number): Promise<number> =>
      servedAgainThrough({ url: gatewayUrl(host), log, since, boundMs: SERVE_AGAIN_MS, logs });

    /**
     * With every replica required, the new master confirms launches only once the group has all its
     * replicas again (the old master back, as one): the bound runs from then, the event it waits on,
     * not from the fault, as how long the Sentinels take to demote a healed master (8 to 20 s) is
     * theirs. Returns the ms from `faultAt` to serving again through `host`'s gateway.
     */
    const servedOnceReplicated = async (host: Host, faultAt: number, back: () => Promise<void>) => {
      await back();
      const replicatedAt = Date.now();
      return replicatedAt - faultAt + (await servedAgain(host, replicatedAt));
    };

    /**
     * Issue 37's partition: the replicas' links cut (they lag: what the primary takes meanwhile is
     * not on them), then the primary's cut and theirs healed, so two Sentinels of three promote a
     * lagging replica; the old primary is healed at once and becomes a replica. Returns the ms from
     * the primary's cut to serving again through `host`'s gateway.
     */
    const laggingFailover = async (host: Host, ackReplicas: number): Promise<number> => {
      const primary = await group.master();
      const replicas = group.others(primary);
      for (const replica of replicas) await replica.cut();
      await new Promise((resolve) => setTimeout(resolve, REPLICA_LAG_MS));
      const cutAt = Date.now();
      await group.promotionAfter(async () => {
        await primary.cut();
        for (const replica of replicas) await replica.heal();
      });
      await primary.heal();
      if (ackReplicas === DURABLE_ACK)
        return servedOnceReplicated(host, cutAt, () => group.waitForReplica(primary));
      const served = await servedAgain(host, cutAt);
      await group.waitForReplica(primary);
      return served;
    };

    it('ACK_REPLICAS=2: serves again after each fault, under load', async () => {
      const [gatewayA, gatewayB] = gatewayHosts;
      const load = harnessLoad(gatewayHosts, log, durable);
      // Read through the gateway that is never isolated; the other one is restarted.
      const sampler = new StatusSampler(gatewayUrl(gatewayB), durable);
      let from = Date.now();
      // Each fault's row is made once the final statuses are read.
      const row = (fault: string, serveAgainMs: number, atLeastOnce = true) => {
        const to = Date.now();
        windows.push({ fault, from, to, serveAgainMs, atLeastOnce });
        from = to;
      };
      try {
        await poll(async () => durable.acknowledged().length >= 20, 60_000);

        // (1) The primary killed: the Sentinels promote the replica.
        const primary = await group.master();
        const killedAt = Date.now();
        await group.promotionAfter(() => group.kill(primary));
        // The killed one started again (as a supervisor would), empty, a replica of the new master.
        const killServed = await servedOnceReplicated(gatewayB, killedAt, () => group.restart(primary));
        row('primary killed (SIGKILL), failover', killServed);

        // (2) The host of the worker that starts the next body cut off, then healed: its jobs' locks
        // lapse, the other worker runs them again; healed, it takes work again.
        row('a worker cut off mid-run, healed', await cutWorkerOfNextRun(workerHosts, log, logs));

        // (3) The primary and gateway A isolated together (the minority): the majority promotes
        // the replica; healed, the old primary becomes a replica and gateway A follows.
        const minority = [await group.master(), gatewayA];
        let heal = async () => {};
        await group.promotionAfter(async () => {
          heal = await isolate(minority, [...group.hosts, gatewayB, ...workerHosts, ...minority]);
        });
        await new Promise((resolve) => setTimeout(resolve, MINORITY_AFTER_PROMOTION_MS));
        await heal();
        const minorityServed = await servedOnceReplicated(gatewayA, Date.now(), () =>
          group.waitForReplica(minority[0] as Host),
        );
        row('primary + gateway A isolated (minority), healed', minorityServed);

        // (4) Gateway A restarted (SIGTERM, started again on its host).
        const restartedAt = Date.now();
        await gateways[0].stop();
        gateways[0] = logs.add(
          'gateway A (restarted)',
          await startGatewayOn(gatewayA, serviceEnv(DURABLE_ACK)),
        );
        // Bounded from when it listens again: how long a process takes to start is the machine's
        // (over 40 s beside busy loops here). The row says the whole time, from the SIGTERM.
        const listeningAt = Date.now();
        const restartServed = await servedAgain(gatewayA, listeningAt);
        row('gateway A restarted (SIGTERM)', listeningAt - restartedAt + restartServed, false);

        // (5) Issue 37's partition: the replica lagging behind a cut link is promoted.
        row(
          'replica cut off, then primary cut off: the lagging replica promoted',
          await laggingFailover(gatewayB, DURABLE_ACK),
        );
      } finally {
        await load.stop();
        await sampler.stop();
      }
      await readFinals(gatewayUrl(gatewayB), durable, 60_000);
      await durable.readRuns(log);
      finalsRead = true;
      console.log(summaryLine('sentinel', durable));
      for (const { fault, from, to, serveAgainMs } of windows)
        rows.push(faultRow(durable, fault, DURABLE_ACK, { from, to }, serveAgainMs));
    }, 300_000);

    it('ACK_REPLICAS=2: no acknowledged execution lost; each ended once', ({ skip }) => {
      if (!finalsRead) skip('the faults did not run to the end: their failure says why');
      const acknowledged = durable.acknowledged();
      expect(acknowledged.length).toBeGreaterThan(0);
      // Each lost one with what is known of it: a failure says which fault took it and how.
      const lostWith = durable.lost(acknowledged).map((id) => {
        const sent = durable.sent.find((one) => one.executionId === id);
        const at = sent?.at ?? 0;
        return {
          id,
          final: durable.finals.get(id),
          sampled: durable.sampled.get(id),
          runs: durable.runs.get(id),
          acknowledgedAt: at,
          gateway: sent?.gateway,
          window: windows.find(({ from, to }) => at >= from && at < to)?.fault,
        };
      });
      expect(lostWith).toEqual([]);
      for (const id of acknowledged) expect(isTerminalStatus(durable.finals.get(id) ?? '')).toBe(true);
    });

    it('a body ran more than once only where a fault took Redis away from its worker, and at most twice', ({
      skip,
    }) => {
      if (!finalsRead) skip('the faults did not run to the end: their failure says why');
      // A body may run again when its first run was under way while such a fault held: it started
      // in the fault's window, or shortly before it (its 200 ms and the write of its end).
      const startedAt = (id: string) => Number(durable.runs.get(id)?.[0]?.split(' ')[1]);
      const mayRunTwice = (id: string) =>
        windows.some(
          ({ atLeastOnce, from, to }) =>
            atLeastOnce && startedAt(id) >= from - RUN_SLACK_MS && startedAt(id) < to,
        );
      const twice = durable.duplicated(durable.acknowledged());
      expect(
        twice.filter((id) => !mayRunTwice(id)).map((id) => ({ id, runs: durable.runs.get(id), windows })),
      ).toEqual([]);
      expect(twice.filter((id) => (durable.runs.get(id)?.length ?? 0) > 2)).toEqual([]);
    });

    it('statuses never went backwards, and each execution has one final status', () => {
      expect(durable.backwards(), JSON.stringify(windows)).toEqual([]);
    });

    it('every refused invocation was answered 503 with Retry-After', () => {
      // A 500 is a fault of the gateway's own: its failure shows what the gateways logged of it.
      expect(durable.unexpected(), logs.unhandled()).toEqual([]);
    });

    it.runIf(REPORT_LOSSES)(
      'ACK_REPLICAS=0: how many acknowledged executions two failovers lose (reported, not asserted; with FAULT_HARNESS_LOSSES=1)',
      async () => {
        const fast = new History();
        const restartedGateways = await Promise.all(
          gateways.map(async (gateway, index) => {
            await gateway.stop();
            return logs.add(
              `gateway ${'AB'[index]} (ACK_REPLICAS=0)`,
              await startGatewayOn(gatewayHosts[index] as Host, serviceEnv(0)),
            );
          }),
        );
        gateways = [restartedGateways[0] as ServiceProcess, restartedGateways[1] as ServiceProcess];
        const load = harnessLoad(gatewayHosts, log, fast);
        let from = Date.now();
        const windows: { fault: string; from: number; to: number; serveAgainMs: number }[] = [];
        try {
          await poll(async () => fast.acknowledged().length >= 20, 60_000);
          const primary = await group.master();
          const killedAt = Date.now();
          await group.promotionAfter(() => group.kill(primary));
          const served = await servedAgain(gatewayHosts[1], killedAt);
          await group.restart(primary);
          windows.push({
            fault: 'primary killed (SIGKILL), failover',
            from,
            to: Date.now(),
            serveAgainMs: served,
          });
          from = Date.now();
          const lagServed = await laggingFailover(gatewayHosts[1], 0);
          windows.push({
            fault: 'replica cut off, then primary cut off: the lagging replica promoted',
            from,
            to: Date.now(),
            serveAgainMs: lagServed,
          });
        } finally {
          await load.stop();
        }
        await readFinals(gatewayUrl(gatewayHosts[1]), fast, 60_000);
        await fast.readRuns(log);
        for (const window of windows) {
          const row = faultRow(fast, window.fault, 0, window, window.serveAgainMs);
          rows.push(row);
          console.log(
            `ACK_REPLICAS=0, ${row.fault}: ${row.lost} of ${row.acknowledged} acknowledged executions lost`,
          );
        }
        expect(fast.acknowledged().length).toBeGreaterThan(0);
      },
      180_000,
    );
  },
);
