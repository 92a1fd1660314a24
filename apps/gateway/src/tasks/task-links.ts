import { randomBytes } from 'node:crypto';
import { SkillError } from '@skillrun/core';
import { errors, jwtVerify, SignJWT } from 'jose';
import type { TaskSecret } from './task-secret';

export interface TaskLinksOptions {
  secret: TaskSecret;
  ttlSeconds: number;
}

/** What a valid link names: the task's execution and attempt, the caller it acts for, and the link itself. */
export interface LinkClaims {
  executionId: string;
  attempt: number;
  /** Who issued it: the link hands the task in for them, so another caller's claim holds it back. */
  callerId: string;
  tokenId: string;
}

const AUDIENCE = 'skillrun:task-link';

/**
 * One-time links that hand a task in without credentials (sent to a person by e-mail, say): a JWT
 * (HS256) naming the execution, its attempt and the caller who issued it (for whom the link acts),
 * expiring after `ttlSeconds`. It works once: completing the task ends its execution, and an
 * ended execution is never handed in again (hand-in-task.lua), so a link refused (another caller
 * holds the task, the output is invalid) is not used up.
 */
export class TaskLinks {
  constructor(private readonly options: TaskLinksOptions) {}

  async issue(
    executionId: string,
    attempt: number,
    callerId: string,
  ): Promise<{ token: string; expiresAt: number }> {
    const expiresAt = Date.now() + this.options.ttlSeconds * 1000;
    const token = await new SignJWT({ attempt, caller: callerId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(executionId)
      .setAudience(AUDIENCE)
      .setJti(randomBytes(16).toString('base64url'))
      .setExpirationTime(Math.floor(expiresAt / 1000))
      .sign(await this.options.secret.key());
    return { token, expiresAt };
  }

  /** The link's claims; 403 ACCESS_DENIED for a link that is forged, altered or expired. */
  async verify(token: string): Promise<LinkClaims> {
    try {
      const { payload } = await jwtVerify(token, await this.options.secret.key(), {
        algorithms: ['HS256'],
        audience: AUDIENCE,
      });
      if (
        typeof payload.sub === 'string' &&
        typeof payload.jti === 'string' &&
        typeof payload.attempt === 'number' &&
        (payload.caller === undefined || typeof payload.caller === 'string')
      ) {
        return {
          executionId: payload.sub,
          attempt: payload.attempt,
          // A link issued before links named their issuer acts for no caller: any claim holds it back.
          callerId: payload.caller ?? '',
          tokenId: payload.jti,
        };
      }
    } catch (error) {
      if (!(error instanceof errors.JOSEError)) throw error;
      if (error instanceof errors.JWTExpired) throw new SkillError('ACCESS_DENIED', 'This link has expired');
    }
    throw new SkillError('ACCESS_DENIED', 'This link is not valid');
  }
}
