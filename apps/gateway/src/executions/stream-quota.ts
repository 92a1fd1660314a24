import { SkillError } from '@skillrun/core';

/**
 * The event streams open on this gateway, counted per caller (or anonymous address) against
 * MAX_STREAMS_PER_CALLER, whichever kind they are. Past the bound: 429 with Retry-After.
 */
export class StreamQuota {
  private readonly open = new Map<string, number>();

  constructor(private readonly maxPerCaller: number) {}

  /** Counts one more stream of the caller; the function it returns gives it back (once). */
  take(caller: string, setRetryAfter: (seconds: string) => void): () => void {
    const count = this.open.get(caller) ?? 0;
    if (count >= this.maxPerCaller) {
      setRetryAfter('5');
      throw new SkillError('RATE_LIMIT_EXCEEDED', `At most ${this.maxPerCaller} open event streams a caller`);
    }
    this.open.set(caller, count + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.open.get(caller) ?? 1) - 1;
      if (left === 0) this.open.delete(caller);
      else this.open.set(caller, left);
    };
  }
}
