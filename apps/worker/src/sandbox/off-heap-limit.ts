import { getHeapStatistics } from 'node:v8';
import { SkillError } from '@skillrun/core';

/**
 * Allocations smaller than this are added up, and the thread's memory read once they reach it: a
 * read costs microseconds, and small buffers are made all the time (every string a Redis
 * connection sends). The bound is overshot by this much at most.
 */
const CHECK_EVERY_BYTES = 1024 * 1024;

export interface OffHeapLimitOptions {
  limitBytes: number;
  /** Collects the thread's garbage, so that what it holds counts only blocks still in use. */
  collectGarbage: () => void;
  /**
   * What the thread holds outside its heap now, garbage not collected yet included, shared memory
   * apart: V8's count of it (ArrayBuffers' memory, Node's Buffers', WebAssembly memories').
   */
  held?: () => number;
}

/** Shared memory the thread made, while it lives. */
interface Shared {
  owner: WeakRef<object>;
  bytes: number;
}

/**
 * The memory a sandbox thread may hold outside its heap (Node bounds only the heap), kept under its
 * limit as it is allocated: an allocation that would take the thread past the limit throws (the
 * skill that tried fails with TOOL_EXECUTION_FAILED, recoverable as any stop for memory is), so the
 * worker never holds more. Blocks dropped a moment ago count until V8 collects them, and that can
 * be as much again as those in use: before refusing, the thread's garbage is collected and its
 * memory read again, as V8 does itself before it gives up on an allocation.
 */
export class OffHeapLimit {
  private unchecked = 0;
  private readonly own: () => number;
  private readonly shared = new Set<Shared>();
  private sharedBytes = 0;

  constructor(private readonly options: OffHeapLimitOptions) {
    this.own = options.held ?? (() => getHeapStatistics().external_memory);
  }

  /**
   * Counts shared memory the thread made (a SharedArrayBuffer, a shared WebAssembly memory), at
   * the most it may grow to, until it is collected: V8 counts it as no one isolate's.
   */
  share(owner: object, bytes: number): void {
    this.shared.add({ owner: new WeakRef(owner), bytes });
    this.sharedBytes += bytes;
  }

  /** Throws, before an allocation of `bytes`, if it would take the thread past its limit. */
  reserve(bytes: number): void {
    this.unchecked += bytes;
    if (this.unchecked < CHECK_EVERY_BYTES) return;
    this.unchecked = 0;
    const after = this.heldCollecting(bytes) + bytes;
    if (after > this.options.limitBytes) {
      throw new SkillError(
        'TOOL_EXECUTION_FAILED',
        `The skill went ${overLimit(after, this.options.limitBytes)}`,
      );
    }
  }

  /**
   * What the thread holds, when that is past its limit (memory allocated where no `reserve` was
   * asked first, in Node's own code); undefined while under it.
   */
  exceeded(): number | undefined {
    const held = this.heldCollecting(0);
    return held > this.options.limitBytes ? held : undefined;
  }

  /** What the thread holds, its garbage collected first if that alone would take it past its limit. */
  private heldCollecting(bytes: number): number {
    const held = this.own() + this.sharedBytes;
    if (held + bytes <= this.options.limitBytes) return held;
    this.options.collectGarbage();
    this.forgetCollected();
    return this.own() + this.sharedBytes;
  }

  /**
   * Stops counting the shared memory collected. Only after a collection: reading a weak reference
   * keeps what it refers to alive until the thread's loop turns, and would keep garbage.
   */
  private forgetCollected(): void {
    for (const shared of this.shared) {
      if (shared.owner.deref()) continue;
      this.shared.delete(shared);
      this.sharedBytes -= shared.bytes;
    }
  }
}

/** "over its memory limit (… MB of buffers, … MB allowed)", as the errors for it say. */
export function overLimit(bytes: number, limitBytes: number): string {
  const mb = (n: number) => Math.round(n / 1024 / 1024);
  return `over its memory limit (${mb(bytes)} MB of buffers, ${mb(limitBytes)} MB allowed)`;
}
