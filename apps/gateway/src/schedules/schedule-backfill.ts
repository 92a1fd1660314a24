import { SkillError } from '@skillrun/core';
import { getNextMillis } from 'bullmq';
import { repeatOf, type ScheduleTiming } from './schedule-timing';

/** The most due times one backfill runs: a larger window is sent in parts. */
export const MOST_BACKFILLED = 1000;

/**
 * The due times of `timing` in [from, to), oldest first, as its Job Scheduler would have set them:
 * a cron's as BullMQ computes each next one, an interval's on the grid of `anchor` (a due time the
 * scheduler set; BullMQ keeps an interval's times on one grid). More than MOST_BACKFILLED is
 * refused, naming the window.
 */
export function backfillDueTimes(timing: ScheduleTiming, anchor: number, from: number, to: number): number[] {
  const times: number[] = [];
  const add = (at: number) => {
    if (times.length === MOST_BACKFILLED) throw tooMany();
    times.push(at);
  };
  if ('every_ms' in timing) {
    const every = timing.every_ms;
    const first = anchor + Math.ceil((from - anchor) / every) * every;
    for (let at = first; at < to; at += every) add(at);
    return times;
  }
  const repeat = repeatOf(timing);
  // getNextMillis answers the first due time strictly after the one given.
  for (let at = getNextMillis(from - 1, repeat); at !== undefined && at < to; ) {
    add(at);
    const next = getNextMillis(at, repeat);
    if (next === undefined || next <= at) break;
    at = next;
  }
  return times;
}

/**
 * The window a backfill names, as epoch ms: `from` before `to`, and `to` not after `now` (due times
 * ahead are the schedule's own, not a backfill's).
 */
export function backfillWindow(
  window: { from: string; to: string },
  now: number,
): { from: number; to: number } {
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  if (Number.isNaN(from)) throw unreadable('/from', window.from);
  if (Number.isNaN(to)) throw unreadable('/to', window.to);
  if (from >= to) throw outOfRange('/to', 'must be after from');
  if (to > now) throw outOfRange('/to', `must not be after now (${new Date(now).toISOString()})`);
  return { from, to };
}

function tooMany(): SkillError {
  return outOfRange('/from', `the window holds more than ${MOST_BACKFILLED} due times: backfill it in parts`);
}

function outOfRange(path: string, message: string): SkillError {
  return new SkillError('PARAM_OUT_OF_RANGE', `${path.slice(1)} ${message}`, {
    details: [{ path, message, code: 'PARAM_OUT_OF_RANGE' }],
  });
}

function unreadable(path: string, value: string): SkillError {
  return new SkillError('INVALID_INPUT', `${path.slice(1)} "${value}" is not a time this service can read`, {
    details: [{ path, message: 'must be an RFC 3339 date-time', code: 'INVALID_INPUT' }],
  });
}
