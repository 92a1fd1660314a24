import { createHash, timingSafeEqual } from 'node:crypto';
import { type Logger, type Principal, SCOPES, SkillError } from '@skillrun/core';
import type { ApiKeyStore } from '@skillrun/core/data';
import { headerOf, type RequestHeaders } from '../http/request-headers';
import type { CustomAuthorizer } from './custom-authorizer';
import { ANONYMOUS, type Identity } from './identity';
import { JwtRejected } from './jwt-rejected';
import type { JwtVerifier } from './jwt-verifier';

export interface AuthenticatorDeps {
  apiKeys: ApiKeyStore;
  /** Absent when no OAuth issuer is configured: Bearer JWTs are then refused. */
  jwt?: JwtVerifier;
  /** ADMIN_API_KEY: the first admin credential, before any key exists. */
  adminKey?: string;
  /** CUSTOM_AUTH_URL: who verifies the credentials of skills whose auth is `custom`. */
  custom?: CustomAuthorizer;
  logger: Logger;
}

export interface CredentialSources {
  /** The header a skill's descriptor names for its API key (X-API-Key by default). */
  header?: string;
  /** `caller.credentials.api_key` of an invocation's body (spec 001). */
  bodyKey?: unknown;
  /** A `custom`-auth skill: its header (or Authorization) goes to the custom authorizer, if any. */
  custom?: { id: string; version: string };
}

const API_KEY_PREFIX = 'srk_';
/** Who ADMIN_API_KEY speaks for. */
export const ADMIN_KEY_PRINCIPAL: Principal = {
  callerId: 'admin',
  scopes: SCOPES,
  role: 'admin',
  method: 'api_key',
};

/**
 * Turns the credentials a request carries into an identity: an API key (X-API-Key, the skill's
 * header, `Authorization: Bearer srk_…`, or the body), or an OAuth 2.0 Bearer JWT. Secrets are
 * compared in constant time and never logged.
 */
export class Authenticator {
  private readonly adminKeyHash: Buffer | undefined;

  constructor(private readonly deps: AuthenticatorDeps) {
    this.adminKeyHash = deps.adminKey === undefined ? undefined : sha256(deps.adminKey);
  }

  async identify(headers: RequestHeaders, sources: CredentialSources = {}): Promise<Identity> {
    if (sources.custom && this.deps.custom) {
      const credential = headerOf(headers, sources.header ?? 'authorization');
      return credential === undefined ? ANONYMOUS : this.deps.custom.authorize(credential, sources.custom);
    }
    const bearer = bearerToken(headerOf(headers, 'authorization'));
    if (bearer !== undefined && !bearer.startsWith(API_KEY_PREFIX)) return this.jwt(bearer);
    const key =
      bearer ??
      headerOf(headers, 'x-api-key') ??
      (sources.header ? headerOf(headers, sources.header) : undefined) ??
      (typeof sources.bodyKey === 'string' ? sources.bodyKey : undefined);
    return key === undefined ? ANONYMOUS : this.apiKey(key);
  }

  /**
   * A key the store made is verified there first, and ADMIN_API_KEY compared only when the store
   * knows no such key: each comparison hashes the key, and a caller's invocation (the hot path)
   * then pays one hash instead of two.
   */
  private async apiKey(key: string): Promise<Identity> {
    const principal = await this.deps.apiKeys.verify(key);
    if (principal) return { kind: 'principal', principal };
    if (this.isAdminKey(key)) return { kind: 'principal', principal: ADMIN_KEY_PRINCIPAL };
    return { kind: 'invalid', method: 'api_key' };
  }

  private async jwt(token: string): Promise<Identity> {
    if (!this.deps.jwt) return { kind: 'invalid', method: 'oauth2' };
    try {
      return { kind: 'principal', principal: await this.deps.jwt.verify(token) };
    } catch (error) {
      if (!(error instanceof JwtRejected)) throw error;
      if (error.reason === 'keys unavailable') {
        throw new SkillError('SERVICE_UNAVAILABLE', "The identity provider's keys cannot be fetched; retry");
      }
      this.deps.logger.info({ reason: error.reason }, 'bearer token refused');
      return { kind: 'invalid', method: 'oauth2' };
    }
  }

  private isAdminKey(key: string): boolean {
    return this.adminKeyHash !== undefined && timingSafeEqual(sha256(key), this.adminKeyHash);
  }
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
