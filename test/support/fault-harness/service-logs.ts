import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogLine, ServiceProcess } from '../service-process';

/** How far before a fault a line is still part of its story. */
const BEFORE_MS = 5_000;
/** Lines per process at most: a load's per-request lines would drown the rest. */
const MOST_LINES = 60;

/**
 * The harness's gateways and workers by name, every one ever started (a restarted gateway's lines
 * stay), so that a fault the system did not recover from is told with what each process said.
 */
export class ServiceLogs {
  private readonly services: { name: string; service: ServiceProcess }[] = [];

  add(name: string, service: ServiceProcess): ServiceProcess {
    this.services.push({ name, service });
    return service;
  }

  /** Each process's lines from shortly before `since`, warnings first chosen when there are many. */
  since(since: number): string {
    return this.services
      .map(({ name, service }) => {
        const lines = service.logs.filter((line) => timeOf(line) >= since - BEFORE_MS);
        const told = lines.length > MOST_LINES ? lines.filter((line) => (line.level ?? 0) >= 40) : lines;
        const stderr = service.stderr.trim() ? `\n  stderr: ${service.stderr.trim().slice(-2_000)}` : '';
        return `${name} (${lines.length} lines, ${told.length} shown):\n${told
          .slice(-MOST_LINES)
          .map((line) => `  ${JSON.stringify(line)}`)
          .join('\n')}${stderr}`;
      })
      .join('\n');
  }

  /** Every process's lines, one file each (JSON lines), in `dir`. */
  async save(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    for (const { name, service } of this.services) {
      const text = service.logs.map((line) => JSON.stringify(line)).join('\n');
      await writeFile(join(dir, `${name.replace(/[^\w=-]+/g, '-')}.jsonl`), `${text}\n${service.stderr}`);
    }
  }
}

function timeOf(line: LogLine): number {
  return typeof line.time === 'string' ? Date.parse(line.time) : Number.NaN;
}
