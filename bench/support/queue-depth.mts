import type { Cluster, Redis } from 'ioredis';

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
 * known (`commandsSent`, and `polls` × DEPTH_COMMANDS to each queue's node), so a command count
 * over a window can leave the bench's own polling out. On a Redis Cluster, one pipeline per queue:
 * a queue's keys share its prefix's slot, but queues of different tags may be on different masters.
 */
export class QueueDepth {
  commandsSent = { llen: 0, zcard: 0 };
  /** Times `pending()` was called: each sent DEPTH_COMMANDS per queue. */
  polls = 0;

  constructor(
    private readonly redis: Redis | Cluster,
    private readonly queues: QueueRef[],
  ) {}

  async pending(): Promise<number> {
    const counts = await Promise.all(this.queues.map((queue) => this.pendingIn(queue)));
    this.polls++;
    this.commandsSent.llen += DEPTH_COMMANDS.llen * this.queues.length;
    this.commandsSent.zcard += DEPTH_COMMANDS.zcard * this.queues.length;
    return counts.reduce((sum, count) => sum + count, 0);
  }

  private async pendingIn(queue: QueueRef): Promise<number> {
    const answers =
      (await this.redis
        .pipeline()
        .llen(queueKey(queue, 'wait'))
        .llen(queueKey(queue, 'paused'))
        .llen(queueKey(queue, 'active'))
        .zcard(queueKey(queue, 'prioritized'))
        .zcard(queueKey(queue, 'delayed'))
        .exec()) ?? [];
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
