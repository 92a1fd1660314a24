import { cpus, totalmem } from 'node:os';

/** The machine, for the top of the report: figures only compare within one machine and one run. */
export function machineLines(redisVersion: string): string[] {
  const processors = cpus();
  return [
    `date: ${new Date().toISOString()}`,
    `cpu: ${processors[0]?.model ?? 'unknown'} × ${processors.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `node: ${process.version}, redis: ${redisVersion}`,
  ];
}
