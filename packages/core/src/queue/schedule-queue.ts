import type { JobSchedulerTemplateOptions } from 'bullmq';

/**
 * The queue of schedules' due times: one BullMQ Job Scheduler per schedule (its id the schedule's),
 * which puts exactly one job on it per due time. Gateways consume it: each job becomes the
 * schedule's run for that due time.
 */
export const SCHEDULE_QUEUE = 'schedules';

/** The job name of a due time. */
export const SCHEDULE_TICK = 'due';

/** A job of the schedule queue: the schedule it is a due time of (its definition is read at the run). */
export interface ScheduleTick {
  schedule_id: string;
  /**
   * A backfilled due time (POST /schedules/{id}/backfill, epoch ms): its job is added now, so its
   * due time is this rather than when it was made. It runs while the schedule is paused too.
   */
  due_at?: number;
}

/**
 * How a due time's job is handled: tried again (a second, then two) when the run could not be
 * decided (Redis away), and removed once done; the failed are kept a while for the queue dashboard.
 */
export const SCHEDULE_TICK_OPTIONS: JobSchedulerTemplateOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: { age: 86_400, count: 1000 },
};
