import { SkillError } from '@skillrun/core';
import { describe, expect, it } from 'vitest';
import { nextRuns, repeatOf, timingOf } from '../../apps/gateway/src/schedules/schedule-timing';

/** The path and message an invalid timing is refused with. */
function refusal(fields: Parameters<typeof timingOf>[0]): { code: string; path?: string } {
  try {
    timingOf(fields);
  } catch (error) {
    if (!(error instanceof SkillError)) throw error;
    const details = (error.options as { details?: Array<{ path: string }> }).details;
    return { code: error.code, ...(details?.[0] ? { path: details[0].path } : {}) };
  }
  throw new Error('not refused');
}

describe('schedule timing', () => {
  it('reads a cron in UTC unless a time zone is named, and an interval alone', () => {
    expect(timingOf({ cron: '*/5 * * * * *' })).toEqual({ cron: '*/5 * * * * *', timezone: 'UTC' });
    expect(timingOf({ cron: '0 9 * * 1-5', timezone: 'Europe/Paris' })).toEqual({
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Paris',
    });
    expect(timingOf({ every_ms: 1000 })).toEqual({ every_ms: 1000 });
    expect(repeatOf({ cron: '@daily', timezone: 'Asia/Tokyo' })).toEqual({
      pattern: '@daily',
      tz: 'Asia/Tokyo',
    });
    expect(repeatOf({ every_ms: 60_000 })).toEqual({ every: 60_000 });
  });

  it('refuses a pattern that does not parse or never comes due, an unknown zone, and both or neither timing', () => {
    expect(refusal({ cron: 'every monday' })).toEqual({ code: 'INVALID_INPUT', path: '/cron' });
    expect(refusal({ cron: '61 * * * *' })).toEqual({ code: 'INVALID_INPUT', path: '/cron' });
    expect(refusal({ cron: '0 0 30 2 *' })).toEqual({ code: 'INVALID_INPUT', path: '/cron' });
    expect(refusal({ cron: '0 9 * * *', timezone: 'Mars/Olympus' })).toEqual({
      code: 'INVALID_INPUT',
      path: '/timezone',
    });
    expect(refusal({ every_ms: 1000, timezone: 'UTC' })).toEqual({
      code: 'INVALID_INPUT',
      path: '/timezone',
    });
    expect(refusal({ cron: '* * * * *', every_ms: 1000 })).toEqual({ code: 'INVALID_INPUT', path: '/cron' });
    expect(refusal({})).toEqual({ code: 'INVALID_INPUT', path: '/cron' });
  });

  it('counts five due times from the first, as BullMQ would set each next one', () => {
    const first = Date.UTC(2030, 0, 1, 8, 0, 0);
    expect(nextRuns({ every_ms: 1500 }, first)).toEqual([0, 1, 2, 3, 4].map((i) => first + i * 1500));
    const weekdays = nextRuns({ cron: '0 9 * * 1-5', timezone: 'Europe/Paris' }, first);
    // 1 January 2030 is a Tuesday; 9:00 in Paris is 8:00 UTC in winter.
    expect(weekdays.map((at) => new Date(at).toISOString())).toEqual([
      '2030-01-01T08:00:00.000Z',
      '2030-01-02T08:00:00.000Z',
      '2030-01-03T08:00:00.000Z',
      '2030-01-04T08:00:00.000Z',
      '2030-01-07T08:00:00.000Z',
    ]);
  });
});
