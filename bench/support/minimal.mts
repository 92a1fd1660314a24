import { freePort } from '@skillrun/redis-server';
import { Child } from './child.mjs';
import type { HttpTarget } from './load.mjs';
import type { QueueRef } from './queue-depth.mjs';

export const BASELINE_PREFIX = '{bench}';
/** The queue of baselines A and B, under a prefix of its own in the same Redis. */
export const BASELINE_QUEUE: QueueRef = { prefix: BASELINE_PREFIX, name: 'minimal' };

export interface MinimalWorkerOptions {
  concurrency: number;
  queues?: string[];
}

/**
 * Baseline B: bench/minimal-gateway.mts and bench/minimal-worker.mts, each in a process of its
 * own, on the baseline queue. Its worker (at the service's concurrency) is also raw BullMQ's.
 */
export class Minimal {
  invocations = 0;
  readonly workers = new Set<Child>();
  private defaultWorker: Child | undefined;

  private constructor(
    private readonly redisUrl: string,
    readonly gateway: Child,
    readonly url: string,
    readonly concurrency: number,
  ) {}

  static async start(redisUrl: string, concurrency: number): Promise<Minimal> {
    const gateway = Child.spawn('minimal-gateway', ['bench/dist/minimal-gateway.mjs'], {
      REDIS_URL: redisUrl,
      QUEUE: BASELINE_QUEUE.name,
      QUEUE_PREFIX: BASELINE_QUEUE.prefix,
      PORT: String(await freePort()),
    });
    const ready = await gateway.ready(/minimal gateway listening/);
    return new Minimal(redisUrl, gateway, `http://127.0.0.1:${ready.port}`, concurrency);
  }

  target(): HttpTarget {
    const body = JSON.stringify({
      caller: { id: 'bench', type: 'service' },
      skill_id: 'noop',
      inputs: { text: 'hello' },
    });
    return { url: this.url, headers: {}, requests: [{ path: '/invoke', body }] };
  }

  async startWorker(options: MinimalWorkerOptions): Promise<Child> {
    const child = Child.spawn('minimal-worker', ['bench/dist/minimal-worker.mjs'], {
      REDIS_URL: this.redisUrl,
      QUEUES: (options.queues ?? [BASELINE_QUEUE.name]).join(','),
      QUEUE_PREFIX: BASELINE_QUEUE.prefix,
      CONCURRENCY: String(options.concurrency),
    });
    child.watch(/minimal worker stopped/);
    await child.ready(/minimal worker ready/);
    this.workers.add(child);
    return child;
  }

  async ensureDefaultWorker(): Promise<Child> {
    if (!this.defaultWorker?.alive)
      this.defaultWorker = await this.startWorker({ concurrency: this.concurrency });
    return this.defaultWorker;
  }

  /** Stops a worker; resolves with the jobs it completed and failed. */
  async stopWorker(worker: Child): Promise<{ completed: number; failed: number }> {
    this.workers.delete(worker);
    if (worker === this.defaultWorker) this.defaultWorker = undefined;
    await worker.stop();
    const stopped = worker.seen(/minimal worker stopped/);
    return {
      completed: Number(stopped?.completed ?? Number.NaN),
      failed: Number(stopped?.failed ?? Number.NaN),
    };
  }

  async stopWorkers(): Promise<void> {
    await Promise.all([...this.workers].map((worker) => this.stopWorker(worker)));
  }
}
