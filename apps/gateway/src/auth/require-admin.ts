import { type Principal, SkillError } from '@skillrun/core';
import type { RequestHandler } from 'express';
import type { Identities } from './identities';
import { type Identity, isAdmin } from './identity';
import { authRequired } from './skill-access';

/**
 * Lets only admin credentials through (ADMIN_API_KEY, or a key with the admin scope); `what` names
 * what it guards in the refusals ("The admin API").
 */
export function requireAdmin(identities: Identities, what: string): RequestHandler {
  return async function adminOnly(req, _res, next) {
    assertAdmin(await identities.of(req.headers), what);
    next();
  };
}

/** The admin the identity is, or the refusal (401 without credentials, 403 without the admin scope). */
export function assertAdmin(identity: Identity, what: string): Principal {
  if (identity.kind !== 'principal') {
    throw authRequired({ type: 'api_key' }, `${what} needs an admin credential (X-API-Key)`);
  }
  if (!isAdmin(identity.principal)) throw new SkillError('ACCESS_DENIED', `${what} needs the admin scope`);
  return identity.principal;
}
