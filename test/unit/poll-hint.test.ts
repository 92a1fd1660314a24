import { describe, expect, it } from 'vitest';
import { pollHintMs } from '../../apps/gateway/src/executions/poll-hint';

describe('the pause a polling client of an unfinished execution is told to take (Retry-After-Ms)', () => {
  const created = '2026-01-01T00:00:00.000Z';
  const at = (ms: number) => Date.parse(created) + ms;

  it('is a tenth of the execution age, from 100 ms to 1 s', () => {
    expect([0, 500, 1000, 2500, 6000, 10_000, 3_600_000].map((age) => pollHintMs(created, at(age)))).toEqual([
      100, 100, 100, 250, 600, 1000, 1000,
    ]);
  });

  it('is the shortest for a record whose clock is ahead of the gateway or unreadable', () => {
    expect(pollHintMs(created, at(-5000))).toBe(100);
    expect(pollHintMs('not a date', at(0))).toBe(100);
  });
});
