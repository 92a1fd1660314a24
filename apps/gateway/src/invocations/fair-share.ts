import type { QueuePlace } from '@skillrun/core/data';

export interface FairShareOptions {
  /** Invocations of one skill a caller may make per window in the queue's order (0: no fair share). */
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
 * counts each caller's invocations of each skill in a fixed window. A caller past `burst` is
 * bursting. While nobody else bursts, every invocation goes in the queue's order: a lone caller,
 * however busy, pays nothing for fair share. While another caller bursts, an invocation within its
 * caller's share goes ahead of the waiting jobs (so a burst already queued does not starve it), and
 * the n-th excess of a burst goes behind them at rank n (so several bursts interleave). With N
 * gateways a caller's burst is spread over them, so the share is at most N × `burst` per window:
 * the bound is loose, the starvation it prevents is not.
 */
export class FairShare {
  private readonly windows = new Map<string, Window>();
  /** Per skill, the window keys of callers that were past their burst. */
  private readonly bursting = new Map<string, Set<string>>();
  private readonly maxCallers: number;
  private readonly clock: () => number;

  constructor(private readonly options: FairShareOptions) {
    this.maxCallers = options.maxCallers ?? 100_000;
    this.clock = options.clock ?? Date.now;
  }

  /** Counts an invocation; answers where it goes in its queue (undefined: in order). */
  place(caller: string, skill: string): QueuePlace | undefined {
    if (this.options.burst === 0) return undefined;
    const key = `${skill}\u0000${caller}`;
    const now = this.clock();
    const window = this.count(key, now);
    const over = window.count - this.options.burst;
    if (over > 0) this.burstersOf(skill).add(key);
    if (!this.someoneElseBursts(skill, key, now)) return undefined;
    return over > 0 ? { behind: over } : { ahead: true };
  }

  private count(key: string, now: number): Window {
    let window = this.windows.get(key);
    if (!window || this.expired(window, now)) {
      window = { startedAt: now, count: 0 };
      this.windows.delete(key);
      if (this.windows.size >= this.maxCallers) this.forgetOldest(now);
    } else {
      this.windows.delete(key);
    }
    // Re-inserted: the map stays ordered by last use.
    this.windows.set(key, window);
    window.count += 1;
    return window;
  }

  /** Whether a caller other than `key`'s is past its burst in its current window; forgets the others. */
  private someoneElseBursts(skill: string, key: string, now: number): boolean {
    const bursters = this.bursting.get(skill);
    if (!bursters) return false;
    // In the order they started bursting: the stale ones, oldest, go before a live one is found.
    for (const other of bursters) {
      const window = this.windows.get(other);
      if (!window || this.expired(window, now) || window.count <= this.options.burst) bursters.delete(other);
      else if (other !== key) return true;
    }
    if (bursters.size === 0) this.bursting.delete(skill);
    return false;
  }

  private burstersOf(skill: string): Set<string> {
    let bursters = this.bursting.get(skill);
    if (!bursters) {
      bursters = new Set();
      this.bursting.set(skill, bursters);
    }
    return bursters;
  }

  private expired(window: Window, now: number): boolean {
    return now - window.startedAt >= this.options.windowMs;
  }

  private forgetOldest(now: number): void {
    for (const [key, window] of this.windows) {
      if (this.windows.size < this.maxCallers && !this.expired(window, now)) return;
      this.windows.delete(key);
    }
  }
}
