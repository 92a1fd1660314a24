import type { Schedule } from './protocol';

/** A schedule's timing, as a person reads it: `every 30 s`, `cron 0 9 * * 1-5 (Europe/Paris)`. */
export function timingText(schedule: Schedule): string {
  if (schedule.cron !== undefined) return `cron ${schedule.cron} (${schedule.timezone ?? 'UTC'})`;
  const ms = schedule.every_ms ?? 0;
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms % size === 0) return `every ${ms / size} ${unit}`;
  }
  return `every ${ms} ms`;
}
