import { Queue, type Telemetry } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Priority } from '../schemas/invocation-request';
import { ShardMap } from '../store/shard-map';
import { SCHEDULE_QUEUE } from './schedule-queue';
import { remoteQueueName, skillQueueName, skillQueueNames } from './skill-queue';
import { WEBHOOK_QUEUE } from './webhook-queue';

/**
 * BullMQ's per-queue event stream is trimmed to about this many entries (its default keeps 10,000,
 * ~1 MB a queue). Nothing of ours reads it: executions announce their changes on their own channel.
 */
const EVENTS_MAX_LEN = 1000;

/**
 * The producer side of every skill version's queues, created on first use and sharing one
 * connection: one per (hash tag, name). An execution's job goes to its queue on the execution id's
 * tag (ShardMap.tagOf, as its record: BullMQ's prefix is that tag), the prefix for every id but a
 * sharded one; the other queues are on the prefix.
 */
export class QueueRegistry {
  private readonly queues = new Map<string, Queue>();
  private readonly shards: ShardMap;

  /**
   * `telemetry`: BullMQ's spans for the jobs added (the process's tracing gives it); none without.
   * `shards`: REDIS_SHARDS, whose vshards' queues `allOf` counts in.
   */
  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
    private readonly telemetry?: Telemetry,
    shards = 1,
  ) {
    this.shards = new ShardMap(prefix, shards);
  }

  /** The queue an execution of this priority goes to: `executionId`'s (the prefix's without one). */
  for(skillId: string, version: string, priority: Priority = 'normal', executionId?: string): Queue {
    return this.named(skillQueueName(skillId, version, priority), this.tagOf(executionId));
  }

  /** The queue an execution of a skill registered from elsewhere goes to (as `for` places it). */
  remote(priority: Priority = 'normal', executionId?: string): Queue {
    return this.named(remoteQueueName(priority), this.tagOf(executionId));
  }

  /** The queue of webhook deliveries. */
  webhooks(): Queue {
    return this.named(WEBHOOK_QUEUE);
  }

  /** The queue of schedules' due times: a Job Scheduler per schedule. */
  schedules(): Queue {
    return this.named(SCHEDULE_QUEUE);
  }

  /** Every queue of the version (high priority first) on every hash tag (ShardMap.tags). */
  allOf(skillId: string, version: string): Queue[] {
    return this.shards
      .tags()
      .flatMap((tag) => skillQueueNames(skillId, version).map((name) => this.named(name, tag)));
  }

  /** The version's queues under the prefix alone (high priority first): legacy executions'. */
  onPrefixOf(skillId: string, version: string): Queue[] {
    return skillQueueNames(skillId, version).map((name) => this.named(name));
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }

  private tagOf(executionId: string | undefined): string {
    return executionId === undefined ? this.prefix : this.shards.tagOf(executionId);
  }

  private named(name: string, tag = this.prefix): Queue {
    const key = `${tag}:${name}`;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = new Queue(name, {
        connection: this.connection,
        prefix: tag,
        streams: { events: { maxLen: EVENTS_MAX_LEN } },
        telemetry: this.telemetry,
      });
      queue.on('error', () => {});
      this.queues.set(key, queue);
    }
    return queue;
  }
}
