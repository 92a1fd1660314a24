import { skillQueueName } from '@skillrun/core';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/** The producer side of every skill's queue, created on first use and sharing one connection. */
export class QueueRegistry {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
  ) {}

  for(skillId: string): Queue {
    let queue = this.queues.get(skillId);
    if (!queue) {
      queue = new Queue(skillQueueName(skillId), { connection: this.connection, prefix: this.prefix });
      queue.on('error', () => {});
      this.queues.set(skillId, queue);
    }
    return queue;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }
}
