import { type Principal, type Role, SkillError } from '@skillrun/core';
import type { RequestHandler } from 'express';
import type { Identities } from './identities';
import { reaches, roleOf } from './role-of';
import { authRequired } from './skill-access';

/** Who else passes: `callers` lets a principal without a role through (it acts on its own executions). */
export type RoleCheck = 'roles only' | 'callers too';

/**
 * The one place a role is checked: 403 ACCESS_DENIED naming the missing role (in the message and
 * as `details.missing_role`) unless `principal` reaches `needed`. `act` says what was refused
 * ("Creating API keys"). Every refusal for want of a role passes here, so that it can be recorded.
 */
export function assertRole(principal: Principal, needed: Role, act: string, check: RoleCheck = 'roles only'): void {
  const role = roleOf(principal);
  if (reaches(role, needed) || (role === undefined && check === 'callers too')) return;
  throw new SkillError('ACCESS_DENIED', `${act} needs the ${needed} role`, {
    details: { missing_role: needed, role: role ?? null },
  });
}

/**
 * Lets only credentials that reach `needed` through (ADMIN_API_KEY, a key or a token with the role,
 * or the admin scope for admin); `what` names what it guards in the refusals ("The admin API").
 */
export function requireRole(identities: Identities, needed: Role, what: string): RequestHandler {
  return async function roleOnly(req, _res, next) {
    const identity = await identities.of(req.headers);
    if (identity.kind !== 'principal') {
      throw authRequired({ type: 'api_key' }, `${what} needs ${article(needed)} ${needed} credential (X-API-Key)`);
    }
    assertRole(identity.principal, needed, what);
    next();
  };
}

function article(role: Role): string {
  return role === 'viewer' ? 'a' : 'an';
}
