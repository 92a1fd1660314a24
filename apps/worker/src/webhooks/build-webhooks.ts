import { OutboundHttp } from '@skillrun/core';
import { TaskNotes } from '@skillrun/core/a2a';
import { WEBHOOK_QUEUE, WebhookDeliveries, WebhookStore } from '@skillrun/core/data';
import { queueTelemetry } from '@skillrun/telemetry';
import { Worker } from 'bullmq';
import { logQueueErrors } from '../consumers/queue-errors';
import type { WorkerShared } from '../worker-shared';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookSender } from './webhook-sender';

export interface WebhookParts {
  dispatchers: WebhookDispatcher[];
  /** The BullMQ worker of the webhook queue (it starts sending as soon as it exists). */
  sender: Worker;
  http: OutboundHttp;
}

/**
 * The webhook dispatchers (notifications streams → deliveries) and the sender of deliveries, on the
 * webhook queue with a concurrency of its own, so a slow or dead receiver holds no execution slot.
 */
export function buildWebhooks({
  config,
  logger,
  redis,
  liveness,
  keys,
  store,
  queues,
  engine,
}: WorkerShared): WebhookParts {
  const webhooks = new WebhookStore(redis, keys, config.EXECUTION_TTL_SECONDS);
  const deliveries = new WebhookDeliveries(redis, keys);
  const http = new OutboundHttp({
    allow: config.OUTBOUND_ALLOW?.split(',') ?? [],
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    // What a receiver answers is not read: a little of it is enough to finish the exchange.
    maxResponseBytes: 64 * 1024,
  });
  const sender = new WebhookSender({
    deliveries,
    webhooks,
    http,
    engine,
    withheldMs: config.WEBHOOK_BACKOFF_MS,
    logger,
  });
  const worker = new Worker(WEBHOOK_QUEUE, (job, token) => sender.deliver(job, token), {
    connection: redis,
    prefix: config.KEY_PREFIX,
    concurrency: config.WEBHOOK_CONCURRENCY,
    runRetryDelay: liveness.intervalMs,
    name: config.WORKER_ID,
    telemetry: queueTelemetry(),
  });
  logQueueErrors(worker, { redis, liveness }, logger);
  const notes = new TaskNotes(redis, keys, config.EXECUTION_TTL_SECONDS);
  // One per notifications stream (a blocking read each: on a cluster they sit on different masters).
  const dispatchers = keys.notifications.streams().map(
    (stream) =>
      new WebhookDispatcher({
        redis: redis.duplicate(),
        stream,
        store,
        webhooks,
        notes,
        deliveries,
        queue: queues.webhooks(),
        consumer: config.WORKER_ID,
        attempts: config.WEBHOOK_ATTEMPTS,
        backoffMs: config.WEBHOOK_BACKOFF_MS,
        logger,
      }),
  );
  return { dispatchers, sender: worker, http };
}
