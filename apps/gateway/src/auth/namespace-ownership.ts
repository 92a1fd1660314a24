import { type Principal, SkillError } from '@skillrun/core';
import { type Identity, isAdmin } from './identity';
import { authRequired } from './skill-access';

/** What a caller asks to do with an id, as the refusals say it. */
export interface IdAction {
  verb: string;
  gerund: string;
}

const PUBLISHING: IdAction = { verb: 'publish', gerund: 'Publishing' };

/**
 * Publishing (registering, deprecating, setting a provider's credentials) needs `admin` or the id's
 * namespace: everything before its last dot, which must be the caller's id (caller `com.acme`
 * publishes `com.acme.translate-v1`). Equal, not a prefix: caller `com` publishes nothing in
 * `com.acme`, and `com.acme` nothing in `com.acmex`, so no caller takes over another's namespace.
 * Other changes to a skill as a whole (pausing it) follow the same rule: `action` names them.
 */
export function assertMayPublish(skillId: string, identity: Identity, action = PUBLISHING): Principal {
  if (identity.kind !== 'principal') {
    throw authRequired({ type: 'api_key' }, `Authentication is required to ${action.verb} skills`);
  }
  const { principal } = identity;
  const namespace = namespaceOf(skillId);
  if (isAdmin(principal) || namespace === principal.callerId) return principal;
  throw new SkillError(
    'ACCESS_DENIED',
    `${action.gerund} "${skillId}" needs the admin scope or the namespace "${namespace ?? skillId}"`,
  );
}

/**
 * Published versions are their owner's (the caller who registered the id's first version): only
 * it, or an admin, changes them. `owners`: the owner of each version concerned.
 */
export function assertOwns(skillId: string, owners: (string | undefined)[], principal: Principal): void {
  if (isAdmin(principal) || owners.every((owner) => owner === principal.callerId)) return;
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
