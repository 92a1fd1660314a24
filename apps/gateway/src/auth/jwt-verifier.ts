import { type Principal, ROLES, type Role, SCOPES, type Scope } from '@skillrun/core';
import {
  createRemoteJWKSet,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  jwtVerify,
} from 'jose';
import {
  JOSEAlgNotAllowed,
  JOSEError,
  JWKSMultipleMatchingKeys,
  JWKSNoMatchingKey,
  JWSSignatureVerificationFailed,
  JWTClaimValidationFailed,
  JWTExpired,
} from 'jose/errors';
import { JwtRejected, type JwtRejectionReason } from './jwt-rejected';

/** Every asymmetric JWS algorithm; HMAC ones are left out since a shared secret cannot come from a JWKS. */
export const ASYMMETRIC_JWT_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

export interface JwtVerifierOptions {
  /** The `iss` every token must carry. */
  issuer: string;
  /** The `aud` every token must name (alone or among others). */
  audience: string;
  /** Where the issuer publishes its signing keys. */
  jwksUrl: string;
  /** The claim that carries the role (default `role`). */
  roleClaim?: string;
  /** The accepted `alg` values, a subset of ASYMMETRIC_JWT_ALGORITHMS (default all of them). */
  algorithms?: readonly string[];
  /** Leeway for `exp` and `nbf` against clock skew (default 5). */
  clockToleranceSeconds?: number;
  /** How long fetched keys are trusted before a refetch (default 10 min). */
  jwksCacheMaxAgeMs?: number;
  /** The least time between two fetches caused by an unknown `kid`, so forged kids cannot flood the issuer (default 30 s). */
  jwksCooldownMs?: number;
  /** How long a JWKS fetch may take (default 5 s). */
  jwksTimeoutMs?: number;
}

const MAX_SUBJECT_LENGTH = 256;

/** Checks OAuth 2.0 bearer JWTs against an issuer's JWKS and turns them into principals. */
export class JwtVerifier {
  private readonly keys: JWTVerifyGetKey;
  private readonly checks: JWTVerifyOptions;
  private readonly roleClaim: string;

  constructor(options: JwtVerifierOptions) {
    const algorithms = options.algorithms ?? ASYMMETRIC_JWT_ALGORITHMS;
    const refused = algorithms.filter((alg) => !ASYMMETRIC_JWT_ALGORITHMS.includes(alg));
    if (algorithms.length === 0 || refused.length > 0) {
      throw new TypeError(`JWT algorithms must be among ${ASYMMETRIC_JWT_ALGORITHMS.join(', ')}`);
    }
    const jwks = createRemoteJWKSet(new URL(options.jwksUrl), {
      cacheMaxAge: options.jwksCacheMaxAgeMs ?? 600_000,
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      timeoutDuration: options.jwksTimeoutMs ?? 5_000,
    });
    this.keys = keysOrUnavailable(jwks);
    this.roleClaim = options.roleClaim ?? 'role';
    this.checks = {
      issuer: options.issuer,
      audience: options.audience,
      algorithms: [...algorithms],
      clockTolerance: options.clockToleranceSeconds ?? 5,
      requiredClaims: ['exp'],
    };
  }

  /** The principal a token stands for; throws JwtRejected when it does not authenticate anyone. */
  async verify(token: string): Promise<Principal> {
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, this.keys, this.checks));
    } catch (error) {
      throw toRejection(error);
    }
    const skills = claims.skills === undefined ? undefined : stringList(claims.skills);
    const role = strongestRole(claims[this.roleClaim]);
    return {
      callerId: subjectOf(claims.sub),
      scopes: knownScopes(claims.scope ?? claims.scp),
      ...(skills && { skills }),
      ...(role && { role }),
      method: 'oauth2',
    };
  }
}

/** Failures to get the keys at all are the issuer's fault, not the token's. */
function keysOrUnavailable(jwks: JWTVerifyGetKey): JWTVerifyGetKey {
  return async (header, token) => {
    try {
      return await jwks(header, token);
    } catch (error) {
      if (error instanceof JWKSNoMatchingKey || error instanceof JWKSMultipleMatchingKeys) throw error;
      throw new JwtRejected('keys unavailable', { cause: error });
    }
  };
}

const CLAIM_REASONS: Record<string, JwtRejectionReason> = {
  iss: 'wrong issuer',
  aud: 'wrong audience',
  nbf: 'not yet valid',
  exp: 'no expiry',
};

/** jose's errors carry the claims; only the reason goes on. */
function toRejection(error: unknown): unknown {
  if (error instanceof JwtRejected || !(error instanceof JOSEError)) return error;
  if (error instanceof JWTExpired) return new JwtRejected('expired');
  if (error instanceof JWTClaimValidationFailed) {
    const reason = error.reason === 'invalid' ? undefined : CLAIM_REASONS[error.claim];
    return new JwtRejected(reason ?? 'malformed');
  }
  if (error instanceof JOSEAlgNotAllowed) return new JwtRejected('algorithm not allowed');
  if (error instanceof JWSSignatureVerificationFailed) return new JwtRejected('invalid signature');
  if (error instanceof JWKSNoMatchingKey) return new JwtRejected('unknown key');
  if (error instanceof JWKSMultipleMatchingKeys) return new JwtRejected('ambiguous key');
  return new JwtRejected('malformed');
}

function subjectOf(sub: unknown): string {
  if (sub === undefined || sub === '') throw new JwtRejected('no subject');
  if (typeof sub !== 'string' || sub.length > MAX_SUBJECT_LENGTH) throw new JwtRejected('invalid subject');
  return sub;
}

/** `scope` is space-separated (RFC 9068); some issuers send `scp` as an array or a string instead. */
function knownScopes(granted: unknown): Scope[] {
  if (granted === undefined) return [];
  const names = typeof granted === 'string' ? granted.split(' ') : stringList(granted);
  return SCOPES.filter((scope) => names.includes(scope));
}

/**
 * The role claim: one name, or a list (as issuers send group-like roles) whose strongest known role
 * counts. Names that are not ours are left out, as unknown scopes are: a token with none is a caller's.
 */
function strongestRole(claim: unknown): Role | undefined {
  if (claim === undefined) return undefined;
  const names = typeof claim === 'string' ? [claim] : stringList(claim);
  return ROLES.findLast((role) => names.includes(role));
}

function stringList(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new JwtRejected('malformed');
  }
  return [...value];
}
