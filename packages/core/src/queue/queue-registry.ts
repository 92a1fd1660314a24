import { Queue, type Telemetry } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Priority } from '../schemas/invocation-request';
import { remoteQueueName, skillQueueName, skillQueueNames } from './skill-queue';
import { WEBHOOK_QUEUE } from './webhook-queue';

/**
 * BullMQ's per-queue event stream is trimmed to about this many entries (its default keeps 10,000,
 * ~1 MB a queue). Nothing of ours reads it: executions announce their changes on their own channel.
 */
const EVENTS_MAX_LEN = 1000;

/** The producer side of every skill version's queues, created on first use and sharing one connection. */
export class QueueRegistry {
  private readonly queues = new Map<string, Queue>();

  /** `telemetry`: BullMQ's spans for the jobs added (the process's tracing gives it); none without. */
  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
    private readonly telemetry?: Telemetry,
  ) {}

  /** The queue an execution of this priority goes to. */
  for(skillId: string, version: string, priority: Priority = 'normal'): Queue {
    return this.named(skillQueueName(skillId, version, priority));
  }

  /** The queue an execution of a skill registered from elsewhere goes to. */
  remote(priority: Priority = 'normal'): Queue {
    return this.named(remoteQueueName(priority));
  }

  /** The queue of webhook deliveries. */
  webhooks(): Queue {
    return this.named(WEBHOOK_QUEUE);
  }

  /** Every queue of the version (high priority first). */
  allOf(skillId: string, version: string): Queue[] {
    return skillQueueNames(skillId, version).map((name) => this.named(name));
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }

  private named(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, {
        connection: this.connection,
        prefix: this.prefix,
        streams: { events: { maxLen: EVENTS_MAX_LEN } },
        telemetry: this.telemetry,
      });
      queue.on('error', () => {});
      this.queues.set(name, queue);
    }
    return queue;
  }
}
