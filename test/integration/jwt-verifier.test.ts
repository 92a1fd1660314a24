import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { JwtRejected, type JwtRejectionReason } from '../../apps/gateway/src/auth/jwt-rejected';
import { JwtVerifier, type JwtVerifierOptions } from '../../apps/gateway/src/auth/jwt-verifier';
import { type JwksServer, startJwksServer } from '../support/jwks-server';

let idp: JwksServer;

beforeAll(async () => {
  idp = await startJwksServer();
});

afterAll(async () => {
  await idp.close();
});

function verifierFor(server: JwksServer, options: Partial<JwtVerifierOptions> = {}): JwtVerifier {
  return new JwtVerifier({
    issuer: server.issuer,
    audience: server.audience,
    jwksUrl: server.jwksUrl,
    jwksCooldownMs: 0,
    ...options,
  });
}

async function startOwnServer(): Promise<JwksServer> {
  const server = await startJwksServer();
  onTestFinished(() => server.close());
  return server;
}

/** The reason a token is refused for, after checking that nothing about the token leaks out. */
async function rejectionOf(verifier: JwtVerifier, token: string): Promise<JwtRejectionReason> {
  const error = await verifier.verify(token).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(JwtRejected);
  const rejected = error as JwtRejected;
  expect(rejected.message).not.toContain(token);
  expect(rejected.stack).not.toContain(token);
  if (rejected.reason !== 'keys unavailable') expect(rejected.cause).toBeUndefined();
  return rejected.reason;
}

function base64url(json: object): string {
  return Buffer.from(JSON.stringify(json)).toString('base64url');
}

function withPayload(token: string, claims: object): string {
  const [header, , signature] = token.split('.');
  return `${header}.${base64url(claims)}.${signature}`;
}

describe('JwtVerifier', () => {
  it('turns a valid token into a principal, keeping only known scopes from `scope`', async () => {
    const token = await idp.sign({
      sub: 'alice',
      scope: 'skill:read openid skill:invoke skill:read',
      skills: ['echo', 'summarize'],
    });

    await expect(verifierFor(idp).verify(token)).resolves.toEqual({
      callerId: 'alice',
      scopes: ['skill:invoke', 'skill:read'],
      skills: ['echo', 'summarize'],
      method: 'oauth2',
    });
  });

  it('reads scopes from an `scp` array and leaves skills out when the token has none', async () => {
    const token = await idp.sign({ sub: 'bob', scp: ['admin', 'profile'] });

    const principal = await verifierFor(idp).verify(token);

    expect(principal).toEqual({ callerId: 'bob', scopes: ['admin'], method: 'oauth2' });
    expect(principal).not.toHaveProperty('skills');
  });

  it('accepts an audience list naming the gateway, other RSA algorithms and a little clock skew', async () => {
    const verifier = verifierFor(idp);
    const tokens = [
      await idp.sign({ sub: 'carol' }, { audience: ['other-api', idp.audience] }),
      await idp.sign({ sub: 'carol' }, { alg: 'PS256' }),
      await idp.sign({ sub: 'carol' }, { expiresIn: -2, notBefore: 2 }),
    ];

    for (const token of tokens) {
      await expect(verifier.verify(token)).resolves.toMatchObject({ callerId: 'carol', scopes: [] });
    }
  });

  const refusals: [string, () => Promise<string> | string, JwtRejectionReason][] = [
    ['an expired token', () => idp.sign({ sub: 'u' }, { expiresIn: -60 }), 'expired'],
    ['a token not valid yet', () => idp.sign({ sub: 'u' }, { notBefore: 60 }), 'not yet valid'],
    ['a token that never expires', () => idp.sign({ sub: 'u' }, { expiresIn: null }), 'no expiry'],
    ['another issuer', () => idp.sign({ sub: 'u' }, { issuer: 'https://evil.example' }), 'wrong issuer'],
    ['another audience', () => idp.sign({ sub: 'u' }, { audience: 'other-api' }), 'wrong audience'],
    ['a key that is not in the JWKS', () => idp.sign({ sub: 'u' }, { key: 'other' }), 'unknown key'],
    ['alg none', () => idp.unsigned({ sub: 'u', scope: 'admin' }), 'algorithm not allowed'],
    ['HS256 keyed with the public key', () => idp.hs256WithPublicKey({ sub: 'u' }), 'algorithm not allowed'],
    ['a token without sub', () => idp.sign({ scope: 'skill:invoke' }), 'no subject'],
    ['an empty sub', () => idp.sign({ sub: '' }), 'no subject'],
    ['a sub over 256 characters', () => idp.sign({ sub: 'x'.repeat(257) }), 'invalid subject'],
    ['a sub that is not a string', () => idp.sign({ sub: 42 as unknown as string }), 'invalid subject'],
    ['a scope that is not a string', () => idp.sign({ sub: 'u', scope: 7 }), 'malformed'],
    ['skills that are not strings', () => idp.sign({ sub: 'u', skills: ['echo', 1] }), 'malformed'],
    ['a word', () => 'not-a-jwt', 'malformed'],
    ['three junk segments', () => 'abc.def.ghi', 'malformed'],
    [
      'a header without alg',
      () => `${base64url({ typ: 'JWT' })}.${base64url({ sub: 'u' })}.c2ln`,
      'malformed',
    ],
    ['a header that is not JSON', () => `bm90LWpzb24.${base64url({ sub: 'u' })}.c2ln`, 'malformed'],
  ];

  it.each(refusals)('refuses %s', async (_name, tokenFor, reason) => {
    expect(await rejectionOf(verifierFor(idp), await tokenFor())).toBe(reason);
  });

  it('refuses a signature by another key under the current kid', async () => {
    const { kid } = decodeProtectedHeader(await idp.sign({ sub: 'u' }));
    const forged = await idp.sign({ sub: 'u' }, { key: 'other', ...(kid && { kid }) });

    expect(await rejectionOf(verifierFor(idp), forged)).toBe('invalid signature');
  });

  it('refuses a token whose payload was changed after signing', async () => {
    const token = await idp.sign({ sub: 'mallory', scope: 'skill:read' });
    const tampered = withPayload(token, {
      iss: idp.issuer,
      aud: idp.audience,
      exp: Math.floor(Date.now() / 1000) + 300,
      sub: 'mallory',
      scope: 'admin',
    });

    expect(await rejectionOf(verifierFor(idp), tampered)).toBe('invalid signature');
  });

  it('refuses an algorithm left out of its list', async () => {
    const verifier = verifierFor(idp, { algorithms: ['ES256', 'EdDSA'] });

    expect(await rejectionOf(verifier, await idp.sign({ sub: 'u' }))).toBe('algorithm not allowed');
  });

  it('cannot be configured with HMAC or none', () => {
    for (const alg of ['HS256', 'none']) {
      expect(() => verifierFor(idp, { algorithms: ['RS256', alg] })).toThrow(TypeError);
    }
  });

  it('caches the keys between verifications', async () => {
    const server = await startOwnServer();
    const verifier = verifierFor(server);

    await verifier.verify(await server.sign({ sub: 'u' }));
    await verifier.verify(await server.sign({ sub: 'v' }));

    expect(server.requests).toBe(1);
  });

  it('follows a key rotation: refetches for the new kid and then refuses the removed key', async () => {
    const server = await startOwnServer();
    const verifier = verifierFor(server);
    const before = await server.sign({ sub: 'u' });
    await verifier.verify(before);

    await server.rotate();
    const after = await server.sign({ sub: 'u' });

    await expect(verifier.verify(after)).resolves.toMatchObject({ callerId: 'u' });
    expect(server.requests).toBe(2);
    expect(await rejectionOf(verifier, before)).toBe('unknown key');
  });

  it('does not refetch for an unknown kid during the cooldown', async () => {
    const server = await startOwnServer();
    const verifier = verifierFor(server, { jwksCooldownMs: 30_000 });
    await verifier.verify(await server.sign({ sub: 'u' }));

    await server.rotate();

    expect(await rejectionOf(verifier, await server.sign({ sub: 'u' }))).toBe('unknown key');
    expect(server.requests).toBe(1);
  });

  it('refuses every token while the JWKS cannot be fetched, and keeps using keys it already has', async () => {
    const server = await startJwksServer();
    const warm = verifierFor(server);
    const token = await server.sign({ sub: 'u' });
    await warm.verify(token);

    await server.close();

    expect(await rejectionOf(verifierFor(server), token)).toBe('keys unavailable');
    await expect(warm.verify(token)).resolves.toMatchObject({ callerId: 'u' });
  });
});
