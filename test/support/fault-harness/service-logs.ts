import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogLine, ServiceProcess } from '../service-process';

/** How far before a fault a line is still part of its story. */
const BEFORE_MS = 5_000;
/** Lines per process at most: a load's per-request lines would drown the rest. */
const MOST_LINES = 60;
/** What a gateway logs of a fault of its own code: the cause of a 500 (internalFault). */
const UNHANDLED = 'unhandled error';

/** What is read of a process: its JSON log lines and its stderr. */
export type LoggedService = Pick<ServiceProcess, 'logs' | 'stderr'>;

/** A process's lines under its name in the harness. */
interface NamedService {
  name: string;
  service: LoggedService;
}

/**
 * The harness's gateways and workers by name, every one ever started (a restarted gateway's lines
 * stay), so that a fault the system did not recover from is told with what each process said.
 */
export class ServiceLogs {
  private readonly services: NamedService[] = [];

  add<S extends LoggedService>(name: string, service: S): S {
    this.services.push({ name, service });
    return service;
  }

  /** Every process's faults of its own (unhandledErrors), for a failure that saw a 500 to show why. */
  unhandled(): string {
    return unhandledErrors(this.services);
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

/**
 * Each `unhandled error` line of each process, whenever logged, with what says where it came from:
 * its time, request id, method and path (or `where`: MCP, A2A), and the fault's stack.
 */
export function unhandledErrors(services: readonly NamedService[]): string {
  const told = services.flatMap(({ name, service }) =>
    service.logs.filter((line) => line.msg === UNHANDLED).map((line) => `${name}: ${faultOf(line)}`),
  );
  return told.length === 0
    ? `no process logged "${UNHANDLED}"`
    : `"${UNHANDLED}" lines (${told.length}):\n${told.join('\n')}`;
}

/** One fault's line: where it was met, then its stack (or the error as logged, when it has none). */
function faultOf(line: LogLine): string {
  const { time, request_id, method, path, where, err } = line;
  const place = [time, `request_id=${String(request_id)}`, method, path, where]
    .filter((part) => part !== undefined)
    .join(' ');
  const stack = (err as { stack?: unknown } | undefined)?.stack;
  const cause = typeof stack === 'string' ? stack : JSON.stringify(err);
  return `${place}\n${cause.replace(/^/gm, '    ')}`;
}

function timeOf(line: LogLine): number {
  return typeof line.time === 'string' ? Date.parse(line.time) : Number.NaN;
}
