import { type AccessPolicy, type AuthConfig, type Principal, SkillError } from '@skillrun/core';
import { accessOf, authOf, type RegistryEntry } from '@skillrun/core/data';
import { assertRole } from './assert-role';
import { type Identity, isAdmin } from './identity';

export interface AccessDefaults {
  access: AccessPolicy;
  auth: AuthConfig;
}

/**
 * Spec 000's access policies. `public`: anyone discovers, invoking follows the skill's `auth`.
 * `restricted`: anyone discovers, invoking needs valid credentials. `private`: invisible to all but
 * admins, its owner and the callers granted it (a credential whose skills list names it).
 */
export class SkillAccess {
  constructor(private readonly defaults: AccessDefaults) {}

  canSee(entry: RegistryEntry, principal: Principal | undefined): boolean {
    return accessOf(entry, this.defaults.access) !== 'private' || this.isGranted(entry, principal);
  }

  /** Throws AUTH_REQUIRED (401) or ACCESS_DENIED (403) unless the identity may invoke the version. */
  assertMayInvoke(entry: RegistryEntry, identity: Identity): void {
    const auth = authOf(entry, this.defaults.auth);
    if (identity.kind === 'invalid') throw authRequired(auth);
    if (identity.kind === 'anonymous') {
      const open = accessOf(entry, this.defaults.access) === 'public' && auth.type === 'none';
      if (open) return;
      throw authRequired(auth);
    }
    const { principal } = identity;
    assertRole(principal, 'operator', 'Invoking', 'callers too');
    if (isAdmin(principal)) return;
    if (!principal.scopes.includes('skill:invoke')) {
      throw new SkillError('ACCESS_DENIED', 'The credentials do not carry the skill:invoke scope');
    }
    if (principal.skills && !principal.skills.includes(entry.id)) {
      throw new SkillError('ACCESS_DENIED', `The credentials are not granted the skill "${entry.id}"`);
    }
  }

  private isGranted(entry: RegistryEntry, principal: Principal | undefined): boolean {
    if (!principal) return false;
    return (
      isAdmin(principal) ||
      principal.skills?.includes(entry.id) === true ||
      entry.owner === principal.callerId
    );
  }
}

/** Spec 001 section 6.5's 401: which kind of credentials the skill takes, and where to get them. */
export function authRequired(
  auth: AuthConfig,
  message = 'Authentication is required to invoke this skill',
): SkillError {
  const type = auth.type === 'none' ? 'api_key' : auth.type;
  return new SkillError('AUTH_REQUIRED', message, {
    details: {
      required_auth_type: type,
      ...(auth.oauth2 ? { authorization_url: auth.oauth2.authorization_url } : {}),
    },
  });
}
