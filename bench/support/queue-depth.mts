import type { Redis } from 'ioredis';

/** BullMQ's keys of one queue: `<prefix>:<name>:<state>`. */
export interface QueueRef {
  prefix: string;
  name: string;
}

export function queueKey(queue: QueueRef, suffix: string): string {
  return `${queue.prefix}:${queue.name}:${suffix}`;
}

/** The Redis commands one `pending()` sends, per queue (subtracted from command counts). */
export const DEPTH_COMMANDS = { llen: 3, zcard: 2 } as const;

/**
 * Jobs not finished yet in some queues (waiting, paused, prioritized, active, delayed), read from
 * BullMQ's keys with plain LLEN/ZCARD rather than its getCounts script: what this costs is exactly
 * known (`commandsSent`), so a command count over a window can leave the bench's own polling out.
 */
export class QueueDepth {
  commandsSent = { llen: 0, zcard: 0 };

  constructor(
    private readonly redis: Redis,
    private readonly queues: QueueRef[],
  ) {}

  async pending(): Promise<number> {
    const pipeline = this.redis.pipeline();
    for (const queue of this.queues) {
      pipeline.llen(queueKey(queue, 'wait'));
      pipeline.llen(queueKey(queue, 'paused'));
      pipeline.llen(queueKey(queue, 'active'));
      pipeline.zcard(queueKey(queue, 'prioritized'));
      pipeline.zcard(queueKey(queue, 'delayed'));
    }
    const answers = (await pipeline.exec()) ?? [];
    this.commandsSent.llen += DEPTH_COMMANDS.llen * this.queues.length;
    this.commandsSent.zcard += DEPTH_COMMANDS.zcard * this.queues.length;
    let total = 0;
    for (const [error, count] of answers) {
      if (error) throw error;
      total += Number(count);
    }
    return total;
  }

  /**
   * Polls until nothing is pending; resolves with the time (performance.now()) it was first seen
   * empty, or rejects after `timeoutMs` without progress.
   */
  async drained(intervalMs = 20, timeoutMs = 60_000): Promise<number> {
    let last = Number.POSITIVE_INFINITY;
    let progressAt = performance.now();
    for (;;) {
      const pending = await this.pending();
      const now = performance.now();
      if (pending === 0) return now;
      if (pending < last) {
        last = pending;
        progressAt = now;
      } else if (now - progressAt > timeoutMs) {
        throw new Error(`queue stuck at ${pending} pending jobs for ${timeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
