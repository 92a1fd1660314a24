/**
 * A delayed execution's start: `afterMs` after it is accepted (launched), or `at` an epoch ms (at
 * once if that has passed).
 */
export type ScheduledStart = { afterMs: number } | { at: number };

/** When a start is due (epoch ms), for an execution accepted at `acceptedAt`. */
export function dueAt(start: ScheduledStart, acceptedAt: number): number {
  return 'afterMs' in start ? acceptedAt + start.afterMs : Math.max(start.at, acceptedAt);
}
