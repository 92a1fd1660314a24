import { SkillError } from '@skillrun/core';
import { describe, expect, it } from 'vitest';
import { requestedStartOf } from '../../apps/gateway/src/invocations/requested-start';

describe('requestedStartOf', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  const max = 60_000;

  const refusal = (context: Parameters<typeof requestedStartOf>[0]) => {
    try {
      requestedStartOf(context, now, max);
    } catch (error) {
      expect(error).toBeInstanceOf(SkillError);
      const { code, details } = (error as SkillError).toBody();
      return { code, details };
    }
    throw new Error('not refused');
  };

  it('starts at once when the context asks for no time', () => {
    expect(requestedStartOf(undefined, now, max)).toBeUndefined();
    expect(requestedStartOf({ priority: 'high' }, now, max)).toBeUndefined();
  });

  it('starts delay_ms after its launch, up to MAX_DELAY_MS', () => {
    expect(requestedStartOf({ delay_ms: 0 }, now, max)).toEqual({ afterMs: 0 });
    expect(requestedStartOf({ delay_ms: 5000 }, now, max)).toEqual({ afterMs: 5000 });
    expect(requestedStartOf({ delay_ms: max }, now, max)).toEqual({ afterMs: max });
    expect(refusal({ delay_ms: max + 1 })).toEqual({
      code: 'PARAM_OUT_OF_RANGE',
      details: [{ path: '/context/delay_ms', message: `must be at most ${max}`, code: 'PARAM_OUT_OF_RANGE' }],
    });
  });

  it('starts at run_at, whatever its offset, up to MAX_DELAY_MS from now', () => {
    expect(requestedStartOf({ run_at: '2026-03-01T12:00:30Z' }, now, max)).toEqual({ at: now + 30_000 });
    expect(requestedStartOf({ run_at: '2026-03-01T13:00:30+01:00' }, now, max)).toEqual({ at: now + 30_000 });
    expect(requestedStartOf({ run_at: '2020-01-01T00:00:00Z' }, now, max)).toEqual({
      at: Date.parse('2020-01-01T00:00:00Z'),
    });
    expect(refusal({ run_at: '2026-03-01T12:01:00.001Z' })).toMatchObject({
      code: 'PARAM_OUT_OF_RANGE',
      details: [{ path: '/context/run_at', message: 'must be at most 2026-03-01T12:01:00.000Z' }],
    });
  });

  it('refuses both at once, and a time that has no instant (a leap second)', () => {
    expect(refusal({ delay_ms: 10, run_at: '2026-03-01T12:00:30Z' })).toMatchObject({
      code: 'INVALID_INPUT',
      details: [{ path: '/context/run_at' }],
    });
    expect(refusal({ run_at: '2026-06-30T23:59:60Z' })).toMatchObject({
      code: 'INVALID_INPUT',
      details: [{ path: '/context/run_at', message: 'must be an RFC 3339 date-time' }],
    });
  });
});
