import { type Principal, type Scope, SkillError } from '@skillrun/core';
import type { ApiKeyStore } from '@skillrun/core/data';
import { ADMIN_KEY_PRINCIPAL } from '../auth/authenticator';
import type { Identity } from '../auth/identity';

/**
 * What a schedule keeps of the credentials it was made with, to act for their caller at each run:
 * never a secret. An API key by its id, read again at every run (revoked, or its scopes or skills
 * changed, and the run sees it); ADMIN_API_KEY as itself, standing while the gateway running the
 * run is given one; a bearer token or a custom authorizer's answer as what it granted then (nothing
 * here can revoke one: deleting the schedule stops it).
 */
export type ScheduleCredential =
  | { kind: 'api_key'; key_id: string }
  | { kind: 'admin_key' }
  | {
      kind: 'granted';
      caller_id: string;
      scopes: Scope[];
      skills?: string[];
      method: Exclude<Principal['method'], 'api_key'>;
    };

/** What the schedule keeps of the principal that makes it. */
export function credentialOf(principal: Principal): ScheduleCredential {
  if (principal.method === 'api_key') {
    return principal.keyId === undefined
      ? { kind: 'admin_key' }
      : { kind: 'api_key', key_id: principal.keyId };
  }
  return {
    kind: 'granted',
    caller_id: principal.callerId,
    scopes: [...principal.scopes],
    ...(principal.skills ? { skills: [...principal.skills] } : {}),
    method: principal.method,
  };
}

/** Who a schedule's credential speaks for now; AUTH_REQUIRED when it no longer stands. */
export class ScheduleCredentials {
  /** `adminKey`: whether this gateway is given ADMIN_API_KEY. */
  constructor(
    private readonly apiKeys: ApiKeyStore,
    private readonly adminKey: boolean,
  ) {}

  async identityOf(credential: ScheduleCredential): Promise<Identity> {
    return { kind: 'principal', principal: await this.principalOf(credential) };
  }

  private async principalOf(credential: ScheduleCredential): Promise<Principal> {
    switch (credential.kind) {
      case 'api_key': {
        const record = await this.apiKeys.get(credential.key_id);
        if (!record || record.revoked_at !== undefined) {
          throw new SkillError(
            'AUTH_REQUIRED',
            `The API key this schedule was made with (${credential.key_id}) has been revoked`,
          );
        }
        return {
          callerId: record.caller_id,
          scopes: record.scopes,
          ...(record.skills ? { skills: record.skills } : {}),
          method: 'api_key',
          keyId: record.id,
        };
      }
      case 'admin_key':
        if (!this.adminKey) {
          throw new SkillError(
            'AUTH_REQUIRED',
            'This schedule was made with ADMIN_API_KEY, which is no longer set',
          );
        }
        return ADMIN_KEY_PRINCIPAL;
      case 'granted':
        return {
          callerId: credential.caller_id,
          scopes: credential.scopes,
          ...(credential.skills ? { skills: credential.skills } : {}),
          method: credential.method,
        };
    }
  }
}
