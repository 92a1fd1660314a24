import { randomBytes } from 'node:crypto';
import { SkillError } from '@skillrun/core';
import { errors, jwtVerify, SignJWT } from 'jose';
import type { TaskSecret } from '../tasks/task-secret';

export interface ApprovalLinksOptions {
  secret: TaskSecret;
  ttlSeconds: number;
}

/** What a valid link names: the execution, and the approver it acts for (who issued it). */
export interface ApprovalLinkClaims {
  executionId: string;
  callerId: string;
  tokenId: string;
}

const AUDIENCE = 'skillrun:approval-link';
/** The secret's use for approval links: a task link can never pass for one (TaskSecret.derivedKey). */
const USE = 'skillrun approval links';

/**
 * One-time links that decide an approval without credentials (sent to a person by e-mail, say), as
 * task links are: a JWT (HS256, with a key derived from the task links' secret for this use alone)
 * naming the execution and the approver who issued it, for whom it acts, expiring after
 * `ttlSeconds` (TASK_LINK_TTL_SECONDS). It works once: the decision it makes is the only one an
 * approval ever gets (approval-decision.lua), so a link used, or one whose approval was decided
 * otherwise, is refused with APPROVAL_DECIDED.
 */
export class ApprovalLinks {
  constructor(private readonly options: ApprovalLinksOptions) {}

  async issue(executionId: string, callerId: string): Promise<{ token: string; expiresAt: number }> {
    const expiresAt = Date.now() + this.options.ttlSeconds * 1000;
    const token = await new SignJWT({ caller: callerId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(executionId)
      .setAudience(AUDIENCE)
      .setJti(randomBytes(16).toString('base64url'))
      .setExpirationTime(Math.floor(expiresAt / 1000))
      .sign(await this.options.secret.derivedKey(USE));
    return { token, expiresAt };
  }

  /** The link's claims; 403 ACCESS_DENIED for a link that is forged, altered or expired. */
  async verify(token: string): Promise<ApprovalLinkClaims> {
    try {
      const { payload } = await jwtVerify(token, await this.options.secret.derivedKey(USE), {
        algorithms: ['HS256'],
        audience: AUDIENCE,
      });
      if (
        typeof payload.sub === 'string' &&
        typeof payload.jti === 'string' &&
        typeof payload.caller === 'string'
      ) {
        return { executionId: payload.sub, callerId: payload.caller, tokenId: payload.jti };
      }
    } catch (error) {
      if (!(error instanceof errors.JOSEError)) throw error;
      if (error instanceof errors.JWTExpired) throw new SkillError('ACCESS_DENIED', 'This link has expired');
    }
    throw new SkillError('ACCESS_DENIED', 'This link is not valid');
  }
}
