import { isTerminalStatus } from '@skillrun/core';
import { poll } from './poll';
import type { ServiceLogs } from './service-logs';

export interface ServedAgainOptions {
  /** The gateway asked. */
  url: string;
  /** The `recorded` skill's log file. */
  log: string;
  /** When the fault (or its heal) was. */
  since: number;
  /** The bound from `since`: a deadline, not a measurement. */
  boundMs: number;
  /** What the processes said, told when the bound runs out. */
  logs: ServiceLogs;
}

/**
 * Until an invocation through the gateway at `url` is acknowledged and completes; returns the ms
 * since `since`. Past the bound it fails, telling what each gateway and worker said meanwhile.
 */
export async function servedAgain({ url, log, since, boundMs, logs }: ServedAgainOptions): Promise<number> {
  await poll(
    async () => {
      const accepted = await fetch(`${url}/skills/recorded/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          skill_id: 'recorded',
          inputs: { log, ms: 0 },
          caller: { id: 'probe', type: 'service' },
        }),
        signal: AbortSignal.timeout(10_000),
      });
      if (accepted.status !== 202) return false;
      const { execution_id } = (await accepted.json()) as { execution_id: string };
      for (;;) {
        const read = await fetch(`${url}/skills/recorded/status/${execution_id}`);
        const status = read.status === 200 ? ((await read.json()) as { status: string }).status : '';
        if (status === 'completed') return true;
        if (isTerminalStatus(status) || Date.now() - since > boundMs) return false;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    boundMs - (Date.now() - since),
    200,
  ).catch((error: Error) => {
    throw new Error(`${error.message}: ${url} did not serve again\n${logs.since(since)}`);
  });
  // Asked once at least, however late: served, but past the bound, fails too.
  const servedMs = Date.now() - since;
  if (servedMs > boundMs)
    throw new Error(
      `${url} served again ${servedMs} ms after the fault, past ${boundMs} ms\n${logs.since(since)}`,
    );
  return servedMs;
}
