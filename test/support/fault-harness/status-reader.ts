import { isTerminalStatus } from '@skillrun/core';
import type { History } from './history';

/** Executions asked about per sampling round, so a round stays short under load. */
const PER_ROUND = 30;
const ROUND_PAUSE_MS = 250;
/** Loops asking for final statuses at once after the run. */
const PARALLEL = 10;

/** Whether GET status answers 200 (with the status), 404 (no such execution) or something else. */
async function readStatus(gateway: string, executionId: string): Promise<string | 'missing' | undefined> {
  try {
    const response = await fetch(`${gateway}/skills/recorded/status/${executionId}`, {
      signal: AbortSignal.timeout(5_000),
    });
    if (response.status === 404) return 'missing';
    if (response.status !== 200) return undefined;
    return ((await response.json()) as { status: string }).status;
  } catch {
    return undefined;
  }
}

/**
 * Samples, while the load runs, the status of acknowledged executions that have not been seen
 * ended (a few each round, oldest first), through `gateway`; into the history.
 */
export class StatusSampler {
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly gateway: string,
    private readonly history: History,
  ) {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    let next = 0;
    while (this.running) {
      const ids = this.history.acknowledged();
      const open = ids.filter((id) => !isTerminalStatus(this.history.sampled.get(id)?.at(-1) ?? ''));
      const round = open.slice(next % Math.max(open.length, 1)).slice(0, PER_ROUND);
      next += PER_ROUND;
      await Promise.all(
        round.map(async (id) => {
          const status = await readStatus(this.gateway, id);
          if (status !== undefined && status !== 'missing') this.history.sample(id, status);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, ROUND_PAUSE_MS));
    }
  }
}

/**
 * Reads each acknowledged execution's final status through `gateway`, asking again until it ends,
 * is not found, or `timeoutMs` has passed (then `unended`); each read is also a sample.
 */
export async function readFinals(gateway: string, history: History, timeoutMs: number): Promise<void> {
  const ids = history.acknowledged();
  const deadline = Date.now() + timeoutMs;
  let next = 0;
  const loop = async () => {
    for (let index = next++; index < ids.length; index = next++) {
      const id = ids[index] as string;
      for (;;) {
        const status = await readStatus(gateway, id);
        if (status === 'missing') {
          history.finals.set(id, 'missing');
          break;
        }
        if (status !== undefined) history.sample(id, status);
        if (status !== undefined && isTerminalStatus(status)) {
          history.finals.set(id, status);
          break;
        }
        if (Date.now() > deadline) {
          history.finals.set(id, 'unended');
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, loop));
}
