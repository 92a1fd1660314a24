import { readFileSync } from 'node:fs';

export interface ProcMemory {
  /** Resident set size now, in MB. */
  rssMb: number;
  /** Peak resident set size over the process' life (VmHWM), in MB. */
  peakMb: number;
}

/** VmRSS and VmHWM of a process from /proc (Linux); worker threads are part of their process. */
export function procMemory(pid: number): ProcMemory | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/**
 * Samples VmRSS every `intervalMs` while a phase runs, and calls `over` once if it passes
 * `guardMb` (the caller stops the process: a runaway worker must not take the machine down).
 */
export class RssSampler {
  maxRssMb = 0;
  private readonly timer: NodeJS.Timeout;
  private tripped = false;

  constructor(
    private readonly pid: number,
    private readonly guardMb: number,
    private readonly over: () => void,
    intervalMs = 50,
  ) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.sample();
  }

  get guardTripped(): boolean {
    return this.tripped;
  }

  stop(): ProcMemory | undefined {
    clearInterval(this.timer);
    this.sample();
    const last = procMemory(this.pid);
    return last && { rssMb: this.maxRssMb, peakMb: last.peakMb };
  }

  private sample(): void {
    const memory = procMemory(this.pid);
    if (!memory) return;
    this.maxRssMb = Math.max(this.maxRssMb, memory.rssMb);
    if (!this.tripped && memory.rssMb > this.guardMb) {
      this.tripped = true;
      this.over();
    }
  }
}
