import { SkillError } from '@skillrun/core';
import { describe, expect, it } from 'vitest';
import { OffHeapLimit } from '../../apps/worker/src/sandbox/off-heap-limit';

const MB = 1024 * 1024;

/** A limit over a thread whose memory outside the heap is `held` (in use) plus `garbage`. */
function limitOver(memory: { held: number; garbage: number }, limitMb = 256) {
  let collections = 0;
  const limit = new OffHeapLimit({
    limitBytes: limitMb * MB,
    held: () => memory.held + memory.garbage,
    collectGarbage: () => {
      collections++;
      memory.garbage = 0;
    },
  });
  return { limit, collections: () => collections };
}

function refusal(run: () => void): SkillError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error as SkillError;
  }
}

describe('OffHeapLimit: a sandbox thread held to its limit outside the heap as it allocates', () => {
  it('lets an allocation through while the thread stays within its limit, without collecting', () => {
    const { limit, collections } = limitOver({ held: 128 * MB, garbage: 0 });
    expect(() => limit.reserve(128 * MB)).not.toThrow();
    expect(collections()).toBe(0);
  });

  it('refuses one that would take the thread past its limit, before it is made, with the memory error', () => {
    const { limit } = limitOver({ held: 200 * MB, garbage: 0 });
    const error = refusal(() => limit.reserve(64 * MB));
    expect(error).toBeInstanceOf(SkillError);
    expect(error?.code).toBe('TOOL_EXECUTION_FAILED');
    expect(error?.recoverable).toBe(true);
    expect(error?.message).toBe('The skill went over its memory limit (264 MB of buffers, 256 MB allowed)');
  });

  it('collects the garbage before refusing: blocks dropped do not count against the next', () => {
    const { limit, collections } = limitOver({ held: 64 * MB, garbage: 192 * MB });
    expect(() => limit.reserve(64 * MB)).not.toThrow();
    expect(collections()).toBe(1);
  });

  it('reads the thread once small allocations add up to a MiB, so none slips past by being small', () => {
    const memory = { held: 256 * MB - 1024, garbage: 0 };
    const { limit } = limitOver(memory);
    let refused: SkillError | undefined;
    for (let i = 0; i < 1024 && !refused; i++) {
      refused = refusal(() => limit.reserve(1024));
      memory.held += 1024;
    }
    expect(refused?.code).toBe('TOOL_EXECUTION_FAILED');
  });

  it('counts the shared memory the thread made, which V8 does not count', () => {
    const { limit } = limitOver({ held: 0, garbage: 0 });
    const shared = new SharedArrayBuffer(8);
    limit.share(shared, 200 * MB);
    expect(refusal(() => limit.reserve(64 * MB))?.code).toBe('TOOL_EXECUTION_FAILED');
  });

  it('says when memory allocated without asking has taken the thread past its limit, garbage collected first', () => {
    const memory = { held: 200 * MB, garbage: 100 * MB };
    const { limit, collections } = limitOver(memory);
    expect(limit.exceeded()).toBeUndefined();
    expect(collections()).toBe(1);
    memory.held = 300 * MB;
    expect(limit.exceeded()).toBe(300 * MB);
  });
});
