import { readFile } from 'node:fs/promises';
import type { Host } from '../local-network';
import { History } from './history';
import { Load } from './load';
import { poll } from './poll';
import type { ServiceLogs } from './service-logs';
import { gatewayUrl } from './service-on-host';

// What both fault scenarios (Sentinels and Cluster) share: their load, their workers' settings and
// the faults that do not depend on how Redis is run.

/** Bound from a fault (or its heal) to serving again; a deadline, not a measurement. */
export const SERVE_AGAIN_MS = 30_000;
/** How long a worker's host stays cut off: past its jobs' locks and a stalled check. */
export const WORKER_CUT_MS = 11_000;
/** How long the minority side stays isolated after the majority promoted a replica. */
export const MINORITY_AFTER_PROMOTION_MS = 3_000;
/** Four callers, each invoking the `recorded` skill (a 200 ms body) again 100 ms after its answer. */
export const LOAD = { callers: 4, pauseMs: 100, bodyMs: 200 };
/**
 * Workers: a job's lock and the stalled check shorter than the defaults (30 s each), so that a
 * cut-off worker's jobs run again within the cut.
 */
export const WORKER_ENV = { JOB_LOCK_MS: '8000', STALLED_CHECK_INTERVAL_MS: '1000' };

/** The steady load through `gateways` (caller i to gateway i mod their number), into `history`. */
export function harnessLoad(gateways: readonly Host[], log: string, history: History = new History()): Load {
  return new Load(
    {
      gateways: gateways.map(gatewayUrl),
      callers: LOAD.callers,
      pauseMs: LOAD.pauseMs,
      inputs: { log, ms: LOAD.bodyMs },
    },
    history,
  );
}

/** The runs written down so far in `log`, one line each (`executionId worker startedAtMs attempt`). */
export async function runsLog(log: string): Promise<string[]> {
  return (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
}

/**
 * Cuts off the host of the worker (`w<index>` of `workerHosts`) that starts the next body, for
 * WORKER_CUT_MS, heals it, and resolves once it has run a body again; returns the ms from the heal.
 * Past the bound it fails, saying which worker and what every process said since the heal.
 */
export async function cutWorkerOfNextRun(
  workerHosts: readonly Host[],
  log: string,
  logs: ServiceLogs,
): Promise<number> {
  const started = (await runsLog(log)).length;
  let cut = -1;
  await poll(
    async () => {
      const next = (await runsLog(log))[started];
      cut = next ? Number(next.split(' ')[1]?.slice(1)) : -1;
      return cut >= 0;
    },
    30_000,
    20,
  );
  const worker = `w${cut}`;
  const host = workerHosts[cut] as Host;
  const runsOn = async () => (await runsLog(log)).filter((line) => line.split(' ')[1] === worker).length;
  await host.cut();
  await new Promise((resolve) => setTimeout(resolve, WORKER_CUT_MS));
  const healedAt = Date.now();
  const runsAtHeal = await runsOn();
  await host.heal();
  await poll(async () => (await runsOn()) > runsAtHeal, SERVE_AGAIN_MS).catch((error: Error) => {
    throw new Error(`${error.message}: ${worker} ran nothing after its heal\n${logs.since(healedAt)}`);
  });
  return Date.now() - healedAt;
}

/**
 * A partition: `minority` and everything else in `all` stop reaching each other (blackhole routes
 * on both sides; this process still reaches both). Resolves to the heal.
 */
export async function isolate(minority: readonly Host[], all: readonly Host[]): Promise<() => Promise<void>> {
  const majority = [...new Set(all)].filter((host) => !minority.includes(host));
  for (const host of minority) await host.drop(majority);
  for (const host of majority) await host.drop(minority);
  return async () => {
    for (const host of minority) await host.undrop(majority);
    for (const host of majority) await host.undrop(minority);
  };
}
