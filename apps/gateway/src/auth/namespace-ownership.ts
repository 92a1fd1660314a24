import { type Principal, type Role, SkillError } from '@skillrun/core';
import { assertRole } from './assert-role';
import type { Identity } from './identity';
import { reaches, roleOf } from './role-of';
import { authRequired } from './skill-access';

/** What a caller asks to do with an id, as the refusals say it. */
export interface IdAction {
  verb: string;
  gerund: string;
  /** The role that may do it to any id. */
  role: Role;
}

const PUBLISHING: IdAction = { verb: 'publish', gerund: 'Publishing', role: 'admin' };

/**
 * Publishing (registering, deprecating, setting a provider's credentials) needs `admin` or the id's
 * namespace: everything before its last dot, which must be the caller's id (caller `com.acme`
 * publishes `com.acme.translate-v1`). Equal, not a prefix: caller `com` publishes nothing in
 * `com.acme`, and `com.acme` nothing in `com.acmex`, so no caller takes over another's namespace.
 * Other changes to a skill as a whole (pausing it) follow the same rule: `action` names them.
 * A credential with a role is the service's staff, not a namespace's: its role decides alone.
 */
export function assertMayPublish(skillId: string, identity: Identity, action = PUBLISHING): Principal {
  if (identity.kind !== 'principal') {
    throw authRequired({ type: 'api_key' }, `Authentication is required to ${action.verb} skills`);
  }
  const { principal } = identity;
  if (roleOf(principal) !== undefined) {
    assertRole(principal, action.role, `${action.gerund} "${skillId}"`);
    return principal;
  }
  const namespace = namespaceOf(skillId);
  if (namespace === principal.callerId) return principal;
  throw new SkillError(
    'ACCESS_DENIED',
    `${action.gerund} "${skillId}" needs the admin scope or the namespace "${namespace ?? skillId}"`,
  );
}

/**
 * Published versions are their owner's (the caller who registered the id's first version): only
 * it, or `role` (an admin by default), changes them. `owners`: the owner of each version concerned.
 */
export function assertOwns(
  skillId: string,
  owners: (string | undefined)[],
  principal: Principal,
  role: Role = 'admin',
): void {
  if (reaches(roleOf(principal), role) || owners.every((owner) => owner === principal.callerId)) return;
  throw notOwner(skillId);
}

export function notOwner(skillId: string): SkillError {
  return new SkillError(
    'ACCESS_DENIED',
    `"${skillId}" is another caller's: only its owner or an admin may change it`,
  );
}

/** `com.acme` of `com.acme.translate`; none for an id without a dot. */
function namespaceOf(skillId: string): string | undefined {
  const dot = skillId.lastIndexOf('.');
  return dot > 0 ? skillId.slice(0, dot) : undefined;
}
