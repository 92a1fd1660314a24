/** Which waiters a freed slot goes to first. */
export type SlotLane = 'high' | 'normal';

/** A wait for a slot: `granted` answers true once one is held, false if the wait was withdrawn. */
export interface SlotWait {
  granted: Promise<boolean>;
  withdraw(): void;
}

interface Waiter {
  /** Who waits (a queue's consumer): its own waits never keep it from carrying its slot on. */
  owner: object;
  grant(granted: boolean): void;
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
  private readonly waiters: Record<SlotLane, Waiter[]> = { high: [], normal: [] };

  constructor(readonly total: number) {
    this.free = total;
  }

  /** Takes a slot if one is free now. */
  private tryAcquire(): boolean {
    if (this.free === 0) return false;
    this.free--;
    return true;
  }

  wait(lane: SlotLane, owner: object): SlotWait {
    if (this.tryAcquire()) return { granted: Promise.resolve(true), withdraw: () => {} };
    let waiter!: Waiter;
    const granted = new Promise<boolean>((grant) => {
      waiter = { owner, grant };
    });
    this.waiters[lane].push(waiter);
    const withdraw = () => {
      const index = this.waiters[lane].indexOf(waiter);
      if (index === -1) return;
      this.waiters[lane].splice(index, 1);
      waiter.grant(false);
    };
    return { granted, withdraw };
  }

  release(): void {
    const next = this.waiters.high.shift() ?? this.waiters.normal.shift();
    if (next) next.grant(true);
    else this.free++;
  }

  /**
   * Whether a slot freed by `owner` (consuming a queue of `lane`) should rather go to another
   * consumer's waiter than to its own queue's next job.
   */
  isWanted(lane: SlotLane, owner: object): boolean {
    const other = (waiter: Waiter) => waiter.owner !== owner;
    return this.waiters.high.some(other) || (lane === 'normal' && this.waiters.normal.some(other));
  }
}
