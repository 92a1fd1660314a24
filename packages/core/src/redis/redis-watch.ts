import type { Redis } from 'ioredis';
import type { Logger } from '../logging/create-logger';
import { type RedisAddress, redisAddressOf } from './redis-address';
import type { RedisTarget } from './redis-target';

/** How often the line that says Redis does not answer is written again while it does not. */
const REPEAT_MS = 15_000;

export interface RedisWatchOptions {
  /** Where the connection goes (named in the lines, without a password). */
  target: RedisTarget;
  logger: Logger;
}

/**
 * What an operator is told of a process's Redis: which one it uses, as it starts; then, while the
 * connection cannot reach it (at start or later), one line ("waiting for Redis at …, set REDIS_URL
 * …") as soon as an attempt fails or the connection is lost, again every REPEAT_MS, and one when it
 * answers. Not a line per attempt: the connection tries again every 2 s at most, and so does each of
 * the process's other connections.
 */
export class RedisWatch {
  /** Resolves once the connection is ready (at once if it is). */
  readonly ready: Promise<void>;
  private readonly address: RedisAddress;
  private timer: NodeJS.Timeout | undefined;
  private lastError = '';

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisWatchOptions,
  ) {
    this.address = redisAddressOf(options.target);
    this.ready =
      redis.status === 'ready' ? Promise.resolve() : new Promise((resolve) => redis.once('ready', resolve));
  }

  start(): void {
    this.options.logger.info({ redis: this.address.text }, `using Redis at ${this.address.text}`);
    this.redis.on('error', this.failed);
    this.redis.on('reconnecting', this.lost);
    this.redis.on('ready', this.answered);
  }

  close(): void {
    this.redis.off('error', this.failed);
    this.redis.off('reconnecting', this.lost);
    this.redis.off('ready', this.answered);
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private readonly failed = (error: Error): void => {
    this.lastError = error.message;
  };

  /** An attempt failed (or the connection was lost): the connection tries again after a pause. */
  private readonly lost = (): void => {
    if (this.timer) return;
    this.waiting();
    this.timer = setInterval(() => this.waiting(), REPEAT_MS);
    this.timer.unref();
  };

  private readonly answered = (): void => {
    this.lastError = '';
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.options.logger.info({ redis: this.address.text }, `Redis answers at ${this.address.text}`);
  };

  private waiting(): void {
    const { text, setting } = this.address;
    this.options.logger.warn(
      { redis: text, ...(this.lastError ? { err: this.lastError } : {}) },
      `waiting for Redis at ${text}, set ${setting} if it is elsewhere`,
    );
  }
}
