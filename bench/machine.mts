import { cpus, totalmem } from 'node:os';
import type { WakeUpCost } from './support/wake-up.mjs';

/** The machine, for the top of the report: figures only compare within one machine and one run. */
export function machineLines(redisVersion: string, wakeUp: WakeUpCost): string[] {
  const processors = cpus();
  return [
    `date: ${new Date().toISOString()}`,
    `cpu: ${processors[0]?.model ?? 'unknown'} × ${processors.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `node: ${process.version}, redis: ${redisVersion}`,
    `thread wake-up: a message to a sleeping thread costs its sender ${wakeUp.senderUs.toFixed(1)} µs ` +
      `(${wakeUp.senderAwakeUs.toFixed(1)} to an awake one) and the thread it wakes ${wakeUp.wokenUs.toFixed(1)} µs of CPU ` +
      `(the sandbox's hop is one such message each way; a few µs each on bare metal)`,
  ];
}
