import { describe, expect, it } from 'vitest';
import { FairShare } from '../../apps/gateway/src/invocations/fair-share';

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

  it('keeps a lone caller in order, however much it invokes', () => {
    const { share } = clocked(2);
    expect(Array.from({ length: 50 }, () => share.place('a', 'echo@1'))).toEqual(Array(50).fill(undefined));
  });

  it("puts another caller's share ahead of a burst, and the excess of each burst behind by its count", () => {
    const { share } = clocked(2);
    for (let i = 0; i < 5; i++) share.place('a', 'echo@1');
    expect([share.place('b', 'echo@1'), share.place('b', 'echo@1')]).toEqual([
      { ahead: true },
      { ahead: true },
    ]);
    // b bursts too: each burst's excess is ranked by how far past its share it is.
    expect(share.place('b', 'echo@1')).toEqual({ behind: 1 });
    expect(share.place('a', 'echo@1')).toEqual({ behind: 4 });
    // Another skill, and a caller the bursters do not touch, go in order.
    expect(share.place('b', 'other@1')).toBeUndefined();
  });

  it('goes back to order when the bursts windows have passed', () => {
    const { share, advance } = clocked(1);
    share.place('a', 's');
    share.place('a', 's');
    expect(share.place('b', 's')).toEqual({ ahead: true });
    advance(999);
    expect(share.place('c', 's')).toEqual({ ahead: true });
    advance(1);
    expect(share.place('b', 's')).toBeUndefined();
  });

  it('is off at burst 0, and forgets the longest-idle callers past its bound', () => {
    const off = clocked(0);
    off.share.place('a', 's');
    expect(Array.from({ length: 5 }, () => off.share.place('b', 's'))).toEqual(Array(5).fill(undefined));
    const { share } = clocked(1, 2);
    share.place('a', 's');
    share.place('a', 's');
    expect(share.place('b', 's')).toEqual({ ahead: true });
    // A third caller: a, the longest idle, is forgotten, and with it its burst.
    expect(share.place('c', 's')).toBeUndefined();
    expect(share.place('a', 's')).toBeUndefined();
  });
});
