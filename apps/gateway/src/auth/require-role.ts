import type { Role } from '@skillrun/core';
import type { RequestHandler } from 'express';
import { assertRole } from './assert-role';
import type { Identities } from './identities';
import { authRequired } from './skill-access';

/**
 * Lets only credentials that reach `needed` through (ADMIN_API_KEY, a key or a token with the role,
 * or the admin scope for admin); `what` names what it guards in the refusals ("The admin API").
 */
export function requireRole(identities: Identities, needed: Role, what: string): RequestHandler {
  return async function roleOnly(req, _res, next) {
    const identity = await identities.of(req.headers);
    if (identity.kind !== 'principal') {
      throw authRequired(
        { type: 'api_key' },
        `${what} needs ${article(needed)} ${needed} credential (X-API-Key)`,
      );
    }
    assertRole(identity.principal, needed, what);
    next();
  };
}

function article(role: Role): string {
  return role === 'viewer' ? 'a' : 'an';
}
