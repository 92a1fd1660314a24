import { hkdfSync, randomBytes } from 'node:crypto';
import type { RedisKeys } from '@skillrun/core/data';
import type { Redis } from 'ioredis';

export interface TaskSecretOptions {
  redis: Redis;
  keys: RedisKeys;
  /** TASK_LINK_SECRET; when absent, a secret every gateway shares is made once and kept in Redis. */
  secret?: string;
}

/**
 * The secret that what hands a task in without the caller's credentials is signed with, the same on
 * every gateway: one-time task links (with the secret itself, HS256), and the state an MCP client
 * echoes to hand a task in by multi-round-trip (with a key derived from it for that use alone, so
 * that neither can be passed off as the other).
 */
export class TaskSecret {
  private secret: Promise<Uint8Array> | undefined;

  constructor(private readonly options: TaskSecretOptions) {}

  /** The secret itself. */
  key(): Promise<Uint8Array> {
    this.secret ??= this.load().catch((error: unknown) => {
      this.secret = undefined;
      throw error;
    });
    return this.secret;
  }

  /** A 32-byte key for one use (HKDF-SHA256 of the secret, `use` its info). */
  async derivedKey(use: string): Promise<Uint8Array> {
    return new Uint8Array(hkdfSync('sha256', await this.key(), new Uint8Array(0), use, 32));
  }

  private async load(): Promise<Uint8Array> {
    const { redis, keys, secret } = this.options;
    if (secret !== undefined) return new TextEncoder().encode(secret);
    await redis.set(keys.taskLinkSecret(), randomBytes(32).toString('base64url'), 'NX');
    const shared = await redis.get(keys.taskLinkSecret());
    if (!shared) throw new Error('the task link secret vanished from Redis');
    return new TextEncoder().encode(shared);
  }
}
