import { type Logger, SkillError } from '@skillrun/core';
import type { Redis } from 'ioredis';

export interface CancellationsOptions {
  /** A connection of its own: once it subscribes it can do nothing else. */
  subscriber: Redis;
  /** The channel gateways announce canceled executions on (RedisKeys.canceled). */
  channel: string;
  logger: Logger;
  /** How long a cancel heard for an execution not running here is remembered. */
  rememberMs?: number;
  /** How many such cancels are remembered at most (the oldest are forgotten first). */
  rememberAtMost?: number;
}

/**
 * What a running attempt holds: whether its execution was canceled, told to listeners or through an
 * AbortSignal, and the release it must call when it ends. The signal is made only when something
 * asks for it: most attempts are never canceled, and an AbortSignal (with the listener a code skill
 * adds to it) per execution cost a busy worker some 3% of its main thread.
 */
export class CancelWatch {
  private controller: AbortController | undefined;
  private readonly listeners: (() => void)[] = [];
  private reason: SkillError | undefined;

  constructor(private readonly released: (watch: CancelWatch) => void) {}

  get canceled(): boolean {
    return this.reason !== undefined;
  }

  /** Aborts, with an EXECUTION_CANCELED SkillError, when the execution is canceled. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Calls `listener` once when the execution is canceled (at once if it was); returns its removal. */
  onCancel(listener: () => void): () => void {
    if (this.reason) {
      listener();
      return () => {};
    }
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  cancel(reason: SkillError): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
    for (const listener of this.listeners.splice(0)) listener();
  }

  release(): void {
    this.listeners.length = 0;
    this.released(this);
  }
}

/**
 * Cancel requests, as this worker hears them: every gateway PUBLISHes the id of each execution it
 * cancels, and the worker running it aborts the attempt's signal (the skill's thread is ended after
 * ABORT_GRACE_MS if it ignores it). A cancel heard just before the job reaches this worker's
 * processor (its fetch and the announcement travel on different connections) is remembered for a
 * while, so the attempt is aborted as it starts. The execution's record says `canceled` whatever
 * happens here: this only stops the work sooner.
 */
export class Cancellations {
  private readonly running = new Map<string, CancelWatch>();
  /** Ids canceled while not running here, in the order heard, with when. */
  private readonly heard = new Map<string, number>();
  private readonly rememberMs: number;
  private readonly rememberAtMost: number;

  constructor(private readonly options: CancellationsOptions) {
    // Its errors are expected while Redis is away (RedisWatch says so), from the moment it connects.
    options.subscriber.on('error', () => {});
    this.rememberMs = options.rememberMs ?? 10 * 60_000;
    this.rememberAtMost = options.rememberAtMost ?? 10_000;
  }

  /** Subscribes; resolves once cancels are heard. */
  async start(): Promise<void> {
    const { subscriber, channel } = this.options;
    subscriber.on('message', (from: string, executionId: string) => {
      if (from === channel) this.cancel(executionId);
    });
    await subscriber.subscribe(channel);
  }

  /** The cancel watch of an attempt of `executionId` starting now. */
  watch(executionId: string): CancelWatch {
    const watch = new CancelWatch((released) => {
      if (this.running.get(executionId) === released) this.running.delete(executionId);
    });
    if (this.heard.delete(executionId)) watch.cancel(canceledError());
    else this.running.set(executionId, watch);
    return watch;
  }

  close(): void {
    this.options.subscriber.disconnect();
  }

  private cancel(executionId: string): void {
    const watch = this.running.get(executionId);
    if (watch) {
      this.running.delete(executionId);
      this.options.logger.info({ execution_id: executionId }, 'execution canceled: aborting its attempt');
      watch.cancel(canceledError());
      return;
    }
    this.remember(executionId);
  }

  private remember(executionId: string): void {
    const now = Date.now();
    this.heard.set(executionId, now);
    for (const [id, at] of this.heard) {
      if (this.heard.size <= this.rememberAtMost && at > now - this.rememberMs) break;
      this.heard.delete(id);
    }
  }
}

function canceledError(): SkillError {
  return new SkillError('EXECUTION_CANCELED', 'The execution was canceled', { recoverable: false });
}
