import { Type } from '@sinclair/typebox';
import { type Logger, type Principal, Role, SCOPES, SchemaValidator, SkillError } from '@skillrun/core';
import type { Identity } from './identity';

/** What the authorizer answers for credentials it accepts. */
const Grant = Type.Object({
  caller_id: Type.String({ minLength: 1, maxLength: 200 }),
  scopes: Type.Optional(Type.Array(Type.Union(SCOPES.map((scope) => Type.Literal(scope))))),
  skills: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  role: Type.Optional(Role),
});
const grants = new SchemaValidator(Grant, 'authorizer answer');

export interface CustomAuthorizerOptions {
  url: string;
  timeoutMs: number;
  logger: Logger;
}

const UNAVAILABLE = 'The authorizer of this skill cannot be reached; retry';

/**
 * Spec 000's `custom` auth: the credentials a skill names are the provider's own, so the gateway
 * asks an external authorizer (as an API gateway's custom authorizer or Envoy's ext_authz do).
 * It POSTs `{credential, skill_id, skill_version}`; 200 `{caller_id, scopes?, skills?, role?}` accepts
 * (scopes default to skill:invoke), 401/403 refuse, anything else is 503.
 */
export class CustomAuthorizer {
  constructor(private readonly options: CustomAuthorizerOptions) {}

  async authorize(credential: string, skill: { id: string; version: string }): Promise<Identity> {
    const response = await this.ask({ credential, skill_id: skill.id, skill_version: skill.version });
    if (response.status === 401 || response.status === 403) return { kind: 'invalid', method: 'custom' };
    if (response.status !== 200) {
      this.options.logger.warn({ status: response.status }, 'custom authorizer failed');
      throw new SkillError('SERVICE_UNAVAILABLE', UNAVAILABLE);
    }
    try {
      const grant = grants.parse(await response.json());
      const principal: Principal = {
        callerId: grant.caller_id,
        scopes: grant.scopes ?? ['skill:invoke'],
        ...(grant.skills ? { skills: grant.skills } : {}),
        ...(grant.role ? { role: grant.role } : {}),
        method: 'custom',
      };
      return { kind: 'principal', principal };
    } catch {
      this.options.logger.warn('custom authorizer answered 200 without a valid grant');
      throw new SkillError('SERVICE_UNAVAILABLE', UNAVAILABLE);
    }
  }

  private async ask(body: Record<string, string>): Promise<Response> {
    try {
      return await fetch(this.options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: 'error',
      });
    } catch {
      this.options.logger.warn('custom authorizer unreachable');
      throw new SkillError('SERVICE_UNAVAILABLE', UNAVAILABLE);
    }
  }
}
