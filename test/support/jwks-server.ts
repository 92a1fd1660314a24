import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  exportJWK,
  exportSPKI,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  SignJWT,
  UnsecuredJWT,
} from 'jose';

export interface TestTokenOptions {
  /** An RSA algorithm (RS256 by default; RS384/512 and PS256/384/512 work with the same keys). */
  alg?: string;
  /** The `kid` header (default the signing key's own). */
  kid?: string;
  /** Seconds from now to `exp` (default 300, negative for the past, null for no `exp`). */
  expiresIn?: number | null;
  /** Seconds from now to `nbf` (no `nbf` by default). */
  notBefore?: number;
  issuer?: string;
  audience?: string | string[];
  /** `other` signs with a key that is never in the JWKS. */
  key?: 'current' | 'other';
}

export interface JwksServer {
  /** The `iss` of the tokens it signs: the server's own origin. */
  issuer: string;
  /** The `aud` of the tokens it signs. */
  audience: string;
  jwksUrl: string;
  /** A token with `iss`, `aud`, `iat` and `exp` filled in; `claims` override them. */
  sign(claims: JWTPayload, options?: TestTokenOptions): Promise<string>;
  /** Replaces the published key with a new one; tokens signed with the old key no longer verify. */
  rotate(): Promise<void>;
  /** An `alg: none` token with the same default claims as `sign`. */
  unsigned(claims: JWTPayload): string;
  /** The key-confusion attack: HS256 with the current public key (SPKI PEM) as the HMAC secret. */
  hs256WithPublicKey(claims: JWTPayload): Promise<string>;
  /** How many times the JWKS was fetched. */
  readonly requests: number;
  close(): Promise<void>;
}

interface TestKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
  publicPem: string;
}

const DEFAULT_LIFETIME_SECONDS = 300;

/**
 * A local OAuth issuer for tests: serves GET /.well-known/jwks.json on 127.0.0.1 and signs tokens.
 *
 *   const idp = await startJwksServer();
 *   const verifier = new JwtVerifier({ issuer: idp.issuer, audience: idp.audience, jwksUrl: idp.jwksUrl });
 *   await verifier.verify(await idp.sign({ sub: 'alice', scope: 'skill:invoke' }));
 *   await idp.close();
 */
export async function startJwksServer(
  options: {
    audience?: string /** Answers every other request (an authorization server's). */;
    otherRoutes?: RequestListener;
  } = {},
): Promise<JwksServer> {
  let generation = 1;
  let current = await createTestKey(`key-${generation}`);
  const other = await createTestKey('other-key');
  let requests = 0;

  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/.well-known/jwks.json') {
      if (options.otherRoutes) options.otherRoutes(req, res);
      else res.writeHead(404).end();
      return;
    }
    requests += 1;
    res.writeHead(200, { 'content-type': 'application/jwk-set+json' });
    res.end(JSON.stringify({ keys: [current.publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const audience = options.audience ?? 'skillrun-gateway';
  const withDefaults = (claims: JWTPayload, token: TestTokenOptions = {}) =>
    defaultClaims(claims, token.issuer ?? issuer, token.audience ?? audience, token);

  return {
    issuer,
    audience,
    jwksUrl: `${issuer}/.well-known/jwks.json`,
    sign: async (claims, token = {}) => {
      const key = token.key === 'other' ? other : current;
      const alg = token.alg ?? 'RS256';
      return new SignJWT(withDefaults(claims, token))
        .setProtectedHeader({ alg, kid: token.kid ?? key.kid, typ: 'JWT' })
        .sign(await importJWK(key.privateJwk, alg));
    },
    rotate: async () => {
      generation += 1;
      current = await createTestKey(`key-${generation}`);
    },
    unsigned: (claims) => new UnsecuredJWT(withDefaults(claims)).encode(),
    hs256WithPublicKey: (claims) =>
      new SignJWT(withDefaults(claims))
        .setProtectedHeader({ alg: 'HS256', kid: current.kid, typ: 'JWT' })
        .sign(new TextEncoder().encode(current.publicPem)),
    get requests() {
      return requests;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function createTestKey(kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return {
    kid,
    privateJwk: await exportJWK(privateKey),
    publicJwk: { ...(await exportJWK(publicKey)), kid, use: 'sig' },
    publicPem: await exportSPKI(publicKey),
  };
}

function defaultClaims(
  claims: JWTPayload,
  iss: string,
  aud: string | string[],
  options: TestTokenOptions,
): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  const expiresIn = options.expiresIn === undefined ? DEFAULT_LIFETIME_SECONDS : options.expiresIn;
  return {
    iss,
    aud,
    iat: now,
    ...(expiresIn !== null && { exp: now + expiresIn }),
    ...(options.notBefore !== undefined && { nbf: now + options.notBefore }),
    ...claims,
  };
}
