import type { Execution, Schedule, ScheduleRun } from '@skillrun/core';
import type { StoredRun, StoredSchedule } from './schedule-store';

const iso = (ms: number) => new Date(ms).toISOString();

/** A schedule as GET answers it: never its owner's credential. */
export function scheduleView(
  schedule: StoredSchedule,
  nextRuns: number[],
  lastRuns?: ScheduleRun[],
): Schedule {
  return {
    schedule_id: schedule.id,
    skill_id: schedule.skill_id,
    ...(schedule.version === undefined ? {} : { version: schedule.version }),
    ...(schedule.cron === undefined ? {} : { cron: schedule.cron, timezone: schedule.timezone ?? 'UTC' }),
    ...(schedule.every_ms === undefined ? {} : { every_ms: schedule.every_ms }),
    inputs: schedule.inputs,
    ...(schedule.context === undefined ? {} : { context: schedule.context }),
    caller: schedule.caller,
    overlap: schedule.overlap,
    paused: schedule.paused,
    next_runs: nextRuns.map(iso),
    ...(lastRuns ? { last_runs: lastRuns } : {}),
    created_at: iso(schedule.created_at),
    updated_at: iso(schedule.updated_at),
  };
}

/** A run as GET shows it, with its execution's status now (when it launched one still on record). */
export function runView(run: StoredRun, status: Execution['status'] | undefined): ScheduleRun {
  return {
    due_at: iso(run.due_at),
    outcome: run.outcome,
    ...(run.execution_id === undefined ? {} : { execution_id: run.execution_id }),
    ...(status === undefined ? {} : { status }),
    ...(run.error === undefined ? {} : { error: run.error }),
    recorded_at: iso(run.recorded_at),
  };
}
