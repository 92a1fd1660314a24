/** Which waiters a freed slot goes to first. */
export type SlotLane = 'high' | 'normal';

/** A wait for a slot: `granted` answers true once one is held, false if the wait was withdrawn. */
export interface SlotWait {
  granted: Promise<boolean>;
  withdraw(): void;
}

/**
 * The worker process's WORKER_CONCURRENCY, shared by every queue it consumes: a job is taken off
 * its queue (and locked) only once a slot is held for it, so a worker hosting many skills never
 * runs more than that many executions at once, nor holds a job it is not running that an idle
 * worker elsewhere could take. A freed slot goes to the waiters of the high lane first, then in
 * the order they came.
 */
export class ExecutionSlots {
  private free: number;
  private readonly waiters: Record<SlotLane, ((granted: boolean) => void)[]> = { high: [], normal: [] };

  constructor(readonly total: number) {
    this.free = total;
  }

  /** Takes a slot if one is free now. */
  tryAcquire(): boolean {
    if (this.free === 0) return false;
    this.free--;
    return true;
  }

  wait(lane: SlotLane): SlotWait {
    if (this.tryAcquire()) return { granted: Promise.resolve(true), withdraw: () => {} };
    let grant!: (granted: boolean) => void;
    const granted = new Promise<boolean>((resolve) => {
      grant = resolve;
    });
    this.waiters[lane].push(grant);
    const withdraw = () => {
      const index = this.waiters[lane].indexOf(grant);
      if (index === -1) return;
      this.waiters[lane].splice(index, 1);
      grant(false);
    };
    return { granted, withdraw };
  }

  release(): void {
    const next = this.waiters.high.shift() ?? this.waiters.normal.shift();
    if (next) next(true);
    else this.free++;
  }

  /** Whether a slot freed by `lane` should rather go to a waiter than to that lane's next job. */
  isWanted(lane: SlotLane): boolean {
    return this.waiters.high.length > 0 || (lane === 'normal' && this.waiters.normal.length > 0);
  }
}
