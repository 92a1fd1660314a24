import type { Principal } from '@skillrun/core';
import type { RequestHandler } from 'express';
import { assertRole } from './assert-role';
import type { Identities } from './identities';
import type { Identity } from './identity';
import { requireRole } from './require-role';
import { authRequired } from './skill-access';

/**
 * Lets only admin credentials through (ADMIN_API_KEY, a key or token with the admin role, or the
 * admin scope); `what` names what it guards in the refusals ("The admin API").
 */
export function requireAdmin(identities: Identities, what: string): RequestHandler {
  return requireRole(identities, 'admin', what);
}

/** The admin the identity is, or the refusal (401 without credentials, 403 naming the admin role). */
export function assertAdmin(identity: Identity, what: string): Principal {
  if (identity.kind !== 'principal') {
    throw authRequired({ type: 'api_key' }, `${what} needs an admin credential (X-API-Key)`);
  }
  assertRole(identity.principal, 'admin', what);
  return identity.principal;
}
