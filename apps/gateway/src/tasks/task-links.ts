import { randomBytes } from 'node:crypto';
import { SkillError } from '@skillrun/core';
import type { RedisKeys } from '@skillrun/core/data';
import type { Redis } from 'ioredis';
import { errors, jwtVerify, SignJWT } from 'jose';

export interface TaskLinksOptions {
  redis: Redis;
  keys: RedisKeys;
  /** TASK_LINK_SECRET; when absent, a secret every gateway shares is made once and kept in Redis. */
  secret?: string;
  ttlSeconds: number;
}

/** What a valid link names: the task's execution and attempt, and the link itself. */
export interface LinkClaims {
  executionId: string;
  attempt: number;
  tokenId: string;
}

const AUDIENCE = 'skillrun:task-link';

/**
 * One-time links that hand a task in without credentials (sent to a person by e-mail, say): a JWT
 * (HS256) naming the execution and its attempt, expiring after `ttlSeconds`, whose id is spent the
 * first time it completes the task.
 */
export class TaskLinks {
  private secret: Promise<Uint8Array> | undefined;

  constructor(private readonly options: TaskLinksOptions) {}

  async issue(executionId: string, attempt: number): Promise<{ token: string; expiresAt: number }> {
    const expiresAt = Date.now() + this.options.ttlSeconds * 1000;
    const token = await new SignJWT({ attempt })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(executionId)
      .setAudience(AUDIENCE)
      .setJti(randomBytes(16).toString('base64url'))
      .setExpirationTime(Math.floor(expiresAt / 1000))
      .sign(await this.key());
    return { token, expiresAt };
  }

  /** The link's claims; 403 ACCESS_DENIED for a link that is forged, altered or expired. */
  async verify(token: string): Promise<LinkClaims> {
    try {
      const { payload } = await jwtVerify(token, await this.key(), {
        algorithms: ['HS256'],
        audience: AUDIENCE,
      });
      if (
        typeof payload.sub === 'string' &&
        typeof payload.jti === 'string' &&
        typeof payload.attempt === 'number'
      ) {
        return { executionId: payload.sub, attempt: payload.attempt, tokenId: payload.jti };
      }
    } catch (error) {
      if (!(error instanceof errors.JOSEError)) throw error;
      if (error instanceof errors.JWTExpired) throw new SkillError('ACCESS_DENIED', 'This link has expired');
    }
    throw new SkillError('ACCESS_DENIED', 'This link is not valid');
  }

  /** Spends the link: true the first time, false ever after (until it would have expired anyway). */
  async use(tokenId: string): Promise<boolean> {
    const set = await this.options.redis.set(
      this.options.keys.usedTaskLink(tokenId),
      '1',
      'EX',
      this.options.ttlSeconds,
      'NX',
    );
    return set === 'OK';
  }

  private key(): Promise<Uint8Array> {
    this.secret ??= this.loadKey().catch((error: unknown) => {
      this.secret = undefined;
      throw error;
    });
    return this.secret;
  }

  private async loadKey(): Promise<Uint8Array> {
    const { redis, keys, secret } = this.options;
    if (secret !== undefined) return new TextEncoder().encode(secret);
    await redis.set(keys.taskLinkSecret(), randomBytes(32).toString('base64url'), 'NX');
    const shared = await redis.get(keys.taskLinkSecret());
    if (!shared) throw new Error('the task link secret vanished from Redis');
    return new TextEncoder().encode(shared);
  }
}
