import type { JobsOptions } from 'bullmq';

/** The queue of webhook deliveries: apart from every skill's, so a slow receiver slows no execution. */
export const WEBHOOK_QUEUE = 'webhooks';

/** A job of the webhook queue: one delivery (its payload and attempts are in its record). */
export interface DeliveryJob {
  delivery_id: string;
}

/**
 * How a delivery is tried: `attempts` times, the n-th retry after `backoffMs × 2^(n-1)`; a
 * redelivery by hand is one attempt. The job id makes a second dispatch of the same event a no-op.
 */
export function deliveryJobOptions(jobId: string, attempts: number, backoffMs: number): JobsOptions {
  return {
    jobId,
    attempts,
    backoff: { type: 'exponential', delay: backoffMs },
    removeOnComplete: true,
    removeOnFail: true,
  };
}
