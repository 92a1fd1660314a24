import { type Principal, SkillError } from '@skillrun/core';
import { type Identity, isAdmin } from './identity';
import { authRequired } from './skill-access';

/**
 * Publishing (registering, deprecating) needs `admin` or ownership of the id's namespace: a caller
 * owns the ids that start with its own id and a dot (caller `com.example` publishes
 * `com.example.translate-v1`).
 */
export function assertMayPublish(skillId: string, identity: Identity): Principal {
  if (identity.kind !== 'principal') {
    throw authRequired({ type: 'api_key' }, 'Authentication is required to publish skills');
  }
  const { principal } = identity;
  if (isAdmin(principal) || skillId.startsWith(`${principal.callerId}.`)) return principal;
  throw new SkillError(
    'ACCESS_DENIED',
    `Publishing "${skillId}" needs the admin scope or the namespace "${skillId.slice(0, skillId.lastIndexOf('.')) || skillId}"`,
  );
}
