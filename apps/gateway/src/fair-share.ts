export interface FairShareOptions {
  /** Invocations of one skill a caller may make per window at everyone's precedence (0: no fair share). */
  burst: number;
  windowMs: number;
  /** Callers tracked at most; the longest-idle are forgotten first. */
  maxCallers?: number;
  clock?: () => number;
}

interface Window {
  startedAt: number;
  count: number;
}

/**
 * Fair share of a skill's queue between callers, without a Redis command on the way: each gateway
 * counts each caller's invocations of each skill in a fixed window, and past `burst` tells the
 * launcher how far past it the caller is, so that the excess waits behind every other caller's
 * executions (skill-queue.ts) instead of ahead of them, as a FIFO would put it. With N gateways a
 * caller's burst is spread over them, so the share is at most N × `burst` per window: the bound is
 * loose, the starvation it prevents is not.
 */
export class FairShare {
  private readonly windows = new Map<string, Window>();
  private readonly maxCallers: number;
  private readonly clock: () => number;

  constructor(private readonly options: FairShareOptions) {
    this.maxCallers = options.maxCallers ?? 100_000;
    this.clock = options.clock ?? Date.now;
  }

  /** Counts an invocation; answers how far past its share the caller is now (0 within it). */
  overShare(caller: string, skill: string): number {
    if (this.options.burst === 0) return 0;
    const key = `${skill}\u0000${caller}`;
    const now = this.clock();
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= this.options.windowMs) {
      window = { startedAt: now, count: 0 };
      this.windows.delete(key);
      if (this.windows.size >= this.maxCallers) this.forgetOldest(now);
    } else {
      this.windows.delete(key);
    }
    // Re-inserted: the map stays ordered by last use.
    this.windows.set(key, window);
    window.count += 1;
    return Math.max(0, window.count - this.options.burst);
  }

  private forgetOldest(now: number): void {
    for (const [key, window] of this.windows) {
      if (this.windows.size < this.maxCallers && now - window.startedAt < this.options.windowMs) return;
      this.windows.delete(key);
    }
  }
}
