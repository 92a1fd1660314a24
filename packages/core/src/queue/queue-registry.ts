import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { skillQueueName } from './skill-queue';

/** The producer side of every skill version's queue, created on first use and sharing one connection. */
export class QueueRegistry {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
  ) {}

  for(skillId: string, version: string): Queue {
    const name = skillQueueName(skillId, version);
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection, prefix: this.prefix });
      queue.on('error', () => {});
      this.queues.set(name, queue);
    }
    return queue;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }
}
