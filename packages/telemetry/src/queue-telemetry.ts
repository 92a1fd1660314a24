import { BullMQOtel } from 'bullmq-otel';
import { tracingStarted } from './tracing-started';

/**
 * BullMQ's own spans (a producer span per job added, a consumer span per job processed, the trace
 * context carried in the job from one to the other), when this process traces; none otherwise, so
 * that jobs carry no context and cost nothing more.
 */
export function queueTelemetry(): BullMQOtel | undefined {
  return tracingStarted() ? new BullMQOtel({ tracerName: 'skillrun' }) : undefined;
}
