import { type AuthConfig, authOf, type SkillRegistry } from '@skillrun/core';
import type { RequestHeaders } from '../request-headers';
import type { Authenticator } from './authenticator';
import type { Identity } from './identity';

export interface ExecutionIdentityDeps {
  authenticator: Authenticator;
  registry: SkillRegistry;
  defaultAuth: AuthConfig;
}

/**
 * Who reads or cancels an execution: the credentials in X-API-Key or Authorization, or else those
 * in the header its skill's auth names, where a spec-001 consumer sends them on every call (another
 * skillrun calling this one as its provider does). The skill is looked up only then: an anonymous
 * request for an execution that has an owner.
 */
export class ExecutionIdentity {
  constructor(private readonly deps: ExecutionIdentityDeps) {}

  /** The request's identity by its usual credentials. */
  identify(headers: RequestHeaders): Promise<Identity> {
    return this.deps.authenticator.identify(headers);
  }

  /** `identity` (what identify found), or else the one in the header the execution's skill names. */
  async refine(
    identity: Identity,
    headers: RequestHeaders,
    execution: { skillId: string; version: string; owned: boolean },
  ): Promise<Identity> {
    const { authenticator, registry, defaultAuth } = this.deps;
    if (identity.kind !== 'anonymous' || !execution.owned) return identity;
    const entry = (await registry.versions(execution.skillId)).find(
      (each) => each.version === execution.version,
    );
    const header = entry && authOf(entry, defaultAuth).header;
    return header ? authenticator.identify(headers, { header }) : identity;
  }
}
