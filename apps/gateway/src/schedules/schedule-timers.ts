import { SCHEDULE_TICK, SCHEDULE_TICK_OPTIONS, type ScheduleTick } from '@skillrun/core/data';
import type { Queue } from 'bullmq';
import { repeatOf, type ScheduleTiming } from './schedule-timing';

/**
 * When schedules come due, kept by BullMQ's Job Schedulers on the schedules queue (in Redis, so it
 * outlives every process): one per schedule, under the schedule's id, which adds exactly one job
 * per due time. Its job carries only the schedule's id: what the run invokes is read when it runs.
 */
export class ScheduleTimers {
  constructor(private readonly queue: Queue<ScheduleTick>) {}

  /**
   * Starts the schedule's timing, or replaces it (its due time already set is replaced too). An
   * interval's first due time is at once, as BullMQ's `every` has it.
   */
  async set(scheduleId: string, timing: ScheduleTiming): Promise<void> {
    await this.queue.upsertJobScheduler(scheduleId, repeatOf(timing), {
      name: SCHEDULE_TICK,
      data: { schedule_id: scheduleId },
      opts: SCHEDULE_TICK_OPTIONS,
    });
  }

  /** Stops it: its due time set already goes too (a job taken already still runs, and finds it paused or gone). */
  async clear(scheduleId: string): Promise<void> {
    await this.queue.removeJobScheduler(scheduleId);
  }

  /**
   * Adds a job for each past due time of a backfill, due at once: one per due time whichever call
   * added it while it waits (its id is the due time's), and the runner runs a due time once.
   */
  async backfill(scheduleId: string, dueTimes: number[]): Promise<void> {
    await this.queue.addBulk(
      dueTimes.map((dueAt) => ({
        name: SCHEDULE_TICK,
        data: { schedule_id: scheduleId, due_at: dueAt },
        opts: { ...SCHEDULE_TICK_OPTIONS, jobId: `backfill-${scheduleId}-${dueAt}` },
      })),
    );
  }

  /** The next due time set (epoch ms), if the schedule has a timing. */
  async next(scheduleId: string): Promise<number | undefined> {
    return (await this.queue.getJobScheduler(scheduleId))?.next ?? undefined;
  }
}
