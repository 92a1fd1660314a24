import { readdirSync, readFileSync } from 'node:fs';

/** CPU time a process has used, in µs: its main thread's and the whole process' (all its threads). */
export interface ProcCpu {
  mainUs: number;
  totalUs: number;
}

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on every Linux Node runs on). */
const TICKS_PER_SECOND = 100;

/** utime + stime of a /proc stat line, in µs (fields 14 and 15; the name in field 2 may hold spaces). */
function statCpuUs(path: string): number {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}

/** The process' CPU so far (Linux); undefined once it has ended. */
export function procCpu(pid: number): ProcCpu | undefined {
  try {
    return { mainUs: statCpuUs(`/proc/${pid}/task/${pid}/stat`), totalUs: statCpuUs(`/proc/${pid}/stat`) };
  } catch {
    return undefined;
  }
}

/** CPU per unit of work between two readings, in µs. */
export function cpuPer(
  before: ProcCpu | undefined,
  after: ProcCpu | undefined,
  units: number,
): ProcCpu | undefined {
  if (!before || !after || units <= 0) return undefined;
  return {
    mainUs: (after.mainUs - before.mainUs) / units,
    totalUs: (after.totalUs - before.totalUs) / units,
  };
}

/**
 * How many times the process' threads have gone to sleep waiting (voluntary context switches, every
 * thread together); undefined once it has ended. Each is a wake-up later, which on a virtual machine
 * costs tens of µs of CPU (the report's machine lines): a side that waits more often per execution
 * pays more for each.
 */
export function procSleeps(pid: number): number | undefined {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let sleeps = 0;
  for (const thread of threads) sleeps += threadSleeps(`/proc/${pid}/task/${thread}/status`);
  return sleeps;
}

/** A thread's voluntary context switches; 0 for one that ended meanwhile. */
function threadSleeps(statusPath: string): number {
  try {
    const status = readFileSync(statusPath, 'utf8');
    return Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * The kinds of thread a Node process runs, by the names Node gives them: its main thread, V8's
 * helpers (the collector's parallel and concurrent work, compiling), worker threads (the worker's
 * sandbox threads), libuv's pool (file writes, DNS), and any other (every thread but the main one
 * before Node 22 named them).
 */
export type ThreadKind = 'main' | 'v8' | 'workers' | 'libuv' | 'other';

export const THREAD_KINDS: readonly ThreadKind[] = ['main', 'v8', 'workers', 'libuv', 'other'];

const KIND_OF_NAME: Record<string, ThreadKind> = {
  MainThread: 'main',
  V8Worker: 'v8',
  DelayedTaskSche: 'v8',
  WorkerThread: 'workers',
  'libuv-worker': 'libuv',
};

/**
 * The process' CPU so far by kind of thread, in µs (Linux); undefined once it has ended. A thread
 * that ended meanwhile takes its time with it, so a reading after one ends may be smaller.
 */
export function procThreadCpu(pid: number): Record<ThreadKind, number> | undefined {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const byKind: Record<ThreadKind, number> = { main: 0, v8: 0, workers: 0, libuv: 0, other: 0 };
  for (const thread of threads) {
    try {
      const path = `/proc/${pid}/task/${thread}/stat`;
      const name = /\((.*)\)/.exec(readFileSync(path, 'utf8'))?.[1] ?? '';
      const kind = thread === String(pid) ? 'main' : (KIND_OF_NAME[name] ?? 'other');
      byKind[kind] += statCpuUs(path);
    } catch {
      // The thread ended between the listing and the reading.
    }
  }
  return byKind;
}
