import { describe, expect, it } from 'vitest';
import { FairShare } from '../../apps/gateway/src/fair-share';

describe('FairShare', () => {
  const clocked = (burst: number, maxCallers?: number) => {
    let now = 0;
    const share = new FairShare({
      burst,
      windowMs: 1000,
      clock: () => now,
      ...(maxCallers ? { maxCallers } : {}),
    });
    return { share, advance: (ms: number) => (now += ms) };
  };

  it("counts each caller's invocations of each skill past the burst, from 1", () => {
    const { share } = clocked(2);
    expect([1, 2, 3, 4].map(() => share.overShare('a', 'echo@1'))).toEqual([0, 0, 1, 2]);
    expect(share.overShare('b', 'echo@1')).toBe(0);
    expect(share.overShare('a', 'other@1')).toBe(0);
  });

  it('starts again when the window has passed', () => {
    const { share, advance } = clocked(1);
    expect([share.overShare('a', 's'), share.overShare('a', 's')]).toEqual([0, 1]);
    advance(999);
    expect(share.overShare('a', 's')).toBe(2);
    advance(1);
    expect(share.overShare('a', 's')).toBe(0);
  });

  it('is off at burst 0, and forgets the longest-idle callers past its bound', () => {
    const off = clocked(0);
    expect(Array.from({ length: 5 }, () => off.share.overShare('a', 's'))).toEqual([0, 0, 0, 0, 0]);
    const { share } = clocked(1, 2);
    share.overShare('a', 's');
    share.overShare('b', 's');
    share.overShare('a', 's');
    share.overShare('c', 's');
    // b was the longest idle: forgotten, it starts from its first invocation again; a is kept.
    expect(share.overShare('b', 's')).toBe(0);
    expect(share.overShare('c', 's')).toBe(1);
  });
});
