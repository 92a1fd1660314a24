import { rolloutBucket } from '@skillrun/core/data';
import { describe, expect, it } from 'vitest';

const callers = Array.from({ length: 10_000 }, (_, index) => `caller-${index}`);

describe('rolloutBucket: where a caller falls in a skill’s ramp', () => {
  it('is the same for a caller and a skill every time, and in 0–99', () => {
    for (const caller of callers.slice(0, 100)) {
      const bucket = rolloutBucket(caller, 'greet');
      expect(bucket).toBe(rolloutBucket(caller, 'greet'));
      expect(Number.isInteger(bucket) && bucket >= 0 && bucket < 100).toBe(true);
    }
  });

  it('spreads callers about evenly, so a ramp at p% takes about p% of them', () => {
    const counts = new Array<number>(100).fill(0);
    for (const caller of callers) {
      const bucket = rolloutBucket(caller, 'greet');
      counts[bucket] = (counts[bucket] ?? 0) + 1;
    }
    // 100 expected per bucket; 10,000 callers make anything outside 50–150 a broken hash.
    expect(Math.min(...counts)).toBeGreaterThan(50);
    expect(Math.max(...counts)).toBeLessThan(150);
    const underTen = callers.filter((caller) => rolloutBucket(caller, 'greet') < 10).length;
    expect(underTen).toBeGreaterThan(800);
    expect(underTen).toBeLessThan(1200);
  });

  it('places a caller independently from one skill to another', () => {
    const same = callers.filter((caller) => rolloutBucket(caller, 'a') === rolloutBucket(caller, 'b')).length;
    // Independent: about 1 in 100 match by chance; the same hash for both would match every one.
    expect(same).toBeLessThan(300);
  });
});
