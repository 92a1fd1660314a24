import { SkillError } from '@skillrun/core';
import { getNextMillis, type RepeatOptions } from 'bullmq';

/** When a schedule comes due: a cron pattern read in a time zone, or a fixed interval. */
export type ScheduleTiming = { cron: string; timezone: string } | { every_ms: number };

/** The time zone a cron pattern is read in when none is named: the same on every gateway, whatever its host's. */
const DEFAULT_TIME_ZONE = 'UTC';

/** How many due times a schedule shows ahead. */
export const NEXT_RUNS = 5;

/**
 * The timing a request names: exactly one of `cron` and `every_ms`; a time zone only with a cron,
 * one that exists; a pattern that parses (as BullMQ will read it: cron-parser, seconds first when it
 * has 6 fields) and comes due at least once more. Anything else is INVALID_INPUT, naming the field.
 */
export function timingOf(fields: { cron?: string; every_ms?: number; timezone?: string }): ScheduleTiming {
  const { cron, every_ms: everyMs, timezone } = fields;
  if ((cron === undefined) === (everyMs === undefined)) {
    throw invalid('/cron', 'exactly one of cron and every_ms must be given');
  }
  if (everyMs !== undefined) {
    if (timezone !== undefined) throw invalid('/timezone', 'applies to a cron pattern only');
    return { every_ms: everyMs };
  }
  const zone = timezone ?? DEFAULT_TIME_ZONE;
  if (!isTimeZone(zone)) throw invalid('/timezone', `"${zone}" is not an IANA time zone`);
  const timing = { cron: cron as string, timezone: zone };
  let next: number | undefined;
  try {
    next = getNextMillis(Date.now(), repeatOf(timing));
  } catch (error) {
    throw invalid('/cron', `is not a cron pattern: ${(error as Error).message}`);
  }
  if (next === undefined) throw invalid('/cron', 'never comes due');
  return timing;
}

/** The timing as a BullMQ Job Scheduler's repeat options. */
export function repeatOf(timing: ScheduleTiming): Omit<RepeatOptions, 'key'> {
  return 'cron' in timing ? { pattern: timing.cron, tz: timing.timezone } : { every: timing.every_ms };
}

/**
 * The due times from `first` (the one the Job Scheduler has set), NEXT_RUNS of them, each computed
 * as BullMQ computes the one after it.
 */
export function nextRuns(timing: ScheduleTiming, first: number): number[] {
  const runs = [first];
  for (let at = first; runs.length < NEXT_RUNS; ) {
    const next = 'cron' in timing ? getNextMillis(at, repeatOf(timing)) : at + timing.every_ms;
    if (next === undefined || next <= at) break;
    runs.push(next);
    at = next;
  }
  return runs;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function invalid(path: string, message: string): SkillError {
  return new SkillError('INVALID_INPUT', `${path.slice(1)} ${message}`, { details: [{ path, message }] });
}
