import { describe, expect, it } from 'vitest';
import { eventIdOf, positionOf } from '../../apps/gateway/src/executions/event-id';

describe("an execution stream's event ids (Last-Event-ID)", () => {
  it('is the change time alone until a chunk was sent, then the time and the seq', () => {
    expect(eventIdOf({ changedAt: 1_700_000_000_123, seq: 0 })).toBe('1700000000123');
    expect(eventIdOf({ changedAt: 1_700_000_000_123, seq: 20 })).toBe('1700000000123:20');
    expect(eventIdOf({ changedAt: 0, seq: 3 })).toBe('0:3');
  });

  it('reads back what it wrote, and counts anything unreadable from the start', () => {
    expect(positionOf('1700000000123:20')).toEqual({ changedAt: 1_700_000_000_123, seq: 20 });
    expect(positionOf('1700000000123')).toEqual({ changedAt: 1_700_000_000_123, seq: 0 });
    expect(positionOf(undefined)).toEqual({ changedAt: 0, seq: 0 });
    expect(positionOf('')).toEqual({ changedAt: 0, seq: 0 });
    expect(positionOf('abc:-1')).toEqual({ changedAt: 0, seq: 0 });
    expect(positionOf('12:1e3')).toEqual({ changedAt: 12, seq: 0 });
    expect(positionOf('99999999999999999999:1')).toEqual({ changedAt: 0, seq: 1 });
  });
});
