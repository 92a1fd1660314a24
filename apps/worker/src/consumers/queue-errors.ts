import type { Logger } from '@skillrun/core';
import type { RedisLiveness } from '@skillrun/core/data';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';

/** A queue's connection (BullMQ makes its others from it) and what watches them all. */
export interface QueueConnection {
  redis: Redis;
  liveness: RedisLiveness;
}

/**
 * A queue's errors, unless the worker's connection is not ready or an incident of the liveness
 * check is open: Redis away is said by RedisWatch, at a slow pace, and a silent Redis by
 * RedisLiveness, once, where each of the queue's connections would say it at every reconnect attempt.
 */
export function logQueueErrors(worker: Worker, { redis, liveness }: QueueConnection, logger: Logger): void {
  worker.on('error', (error) => {
    if (redis.status === 'ready' && liveness.answering)
      logger.warn({ err: error.message, queue: worker.name }, 'queue error');
  });
}
