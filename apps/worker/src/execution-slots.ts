/** Which waiters a freed slot goes to first. */
export type SlotLane = 'high' | 'normal';

/**
 * The worker process's WORKER_CONCURRENCY, shared by every queue it consumes: a job is taken off
 * its queue (and locked) only once a slot is held for it, so a worker hosting many skills never
 * runs more than that many executions at once, nor holds a job it is not running that an idle
 * worker elsewhere could take. A freed slot goes to the waiters of the high lane first, then in
 * the order they came.
 */
export class ExecutionSlots {
  private free: number;
  private readonly waiters: Record<SlotLane, (() => void)[]> = { high: [], normal: [] };

  constructor(readonly total: number) {
    this.free = total;
  }

  acquire(lane: SlotLane): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters[lane].push(resolve));
  }

  release(): void {
    const next = this.waiters.high.shift() ?? this.waiters.normal.shift();
    if (next) next();
    else this.free++;
  }

  /** Whether a slot freed by `lane` should rather go to a waiter than to that lane's next job. */
  isWanted(lane: SlotLane): boolean {
    return this.waiters.high.length > 0 || (lane === 'normal' && this.waiters.normal.length > 0);
  }

  get running(): number {
    return this.total - this.free;
  }
}
