import { type Logger, TimeoutError, withTimeout } from '@skillrun/core';
import {
  createRedis,
  type RedisLiveness,
  type RedisTarget,
  SCHEDULE_QUEUE,
  type ScheduleTick,
} from '@skillrun/core/data';
import { queueTelemetry } from '@skillrun/telemetry';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ScheduleRunner } from './schedule-runner';

export interface ScheduleConsumerDeps {
  runner: Pick<ScheduleRunner, 'run'>;
  target: RedisTarget;
  /**
   * The gateway's: its connection is watched too, and on one server (or Sentinels) the blocking
   * one BullMQ makes of it; a cluster client's duplicate is a cluster client of its own, unwatched.
   */
  liveness: RedisLiveness;
  prefix: string;
  logger: Logger;
}

/** Due times one gateway runs at once: each is a few Redis round trips. */
const CONCURRENCY = 4;
/**
 * How long a due time stays locked to the gateway running it without renewal (renewed every half of
 * it), and how often gateways look for locks that expired: a due time a dead gateway held runs on
 * another within the two.
 */
const LOCK_MS = 10_000;
const STALLED_CHECK_MS = 5_000;
/**
 * How long a stop waits for the due times under way (a few round trips each) before it lets them
 * go. BullMQ's close has no bound of its own: after a partition had cut a gateway off on a cluster,
 * it waited for good on its fetch loop (whose blocking connection ioredis had left closed, with no
 * node), and the gateway met its stop deadline. A due time let go runs again on another gateway
 * once its lock expires, and finds the execution this one launched (ScheduleRunner).
 */
const CLOSE_MS = 5_000;

/**
 * The gateway's consumer of the schedules queue (a BullMQ Worker on a blocking connection of its
 * own): every gateway runs one, and BullMQ gives each due time to one of them. Gateways, not
 * workers, run schedules: a run is an invocation, and they hold what invoking takes (credentials,
 * the registry, validation, limits).
 */
export class ScheduleConsumer {
  private worker: Worker<ScheduleTick> | undefined;
  private connection: Redis | undefined;

  constructor(private readonly deps: ScheduleConsumerDeps) {}

  start(): void {
    const { runner, target, liveness, prefix, logger } = this.deps;
    const connection = createRedis(target, { role: 'queue', liveness });
    const worker = new Worker<ScheduleTick>(SCHEDULE_QUEUE, (job) => runner.run(job), {
      connection,
      prefix,
      concurrency: CONCURRENCY,
      lockDuration: LOCK_MS,
      stalledInterval: STALLED_CHECK_MS,
      runRetryDelay: liveness.intervalMs,
      telemetry: queueTelemetry(),
    });
    // While Redis is away every command fails: readiness says so, once; a silent one, liveness.
    worker.on('error', (error) => {
      if (connection.status === 'ready' && liveness.answering)
        logger.warn({ err: error.message, queue: SCHEDULE_QUEUE }, 'queue error');
    });
    worker.on('failed', (job, error) => {
      logger.warn(
        { err: error.message, schedule_id: job?.data.schedule_id },
        'schedule due time not run; tried again',
      );
    });
    this.connection = connection;
    this.worker = worker;
  }

  /** Lets the due times under way finish (for CLOSE_MS at most), then disconnects. */
  async close(): Promise<void> {
    const { worker, connection } = this;
    try {
      await withTimeout(worker?.close() ?? Promise.resolve(), CLOSE_MS);
    } catch (error) {
      if (!(error instanceof TimeoutError)) throw error;
      this.deps.logger.warn(
        { queue: SCHEDULE_QUEUE, waited_ms: CLOSE_MS },
        'schedules consumer not closed in time: let go of what it ran',
      );
      // Not awaited: it can wait on the same connection; the process exits once every part is closed.
      worker?.disconnect().catch(() => {});
    }
    connection?.disconnect();
  }
}
