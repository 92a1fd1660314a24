import { type Static, Type } from '@sinclair/typebox';
import { SchemaValidator, SkillError } from '@skillrun/core';
import type { Router } from 'express';
import type { GatewayConfig } from '../config';
import { measuredRouter } from '../metrics/measured-router';

/** Where the console's people sign in, and where their codes are exchanged. */
export interface OAuthEndpoints {
  authorizationUrl: string;
  tokenUrl: string;
}

/** Signing in to the console through an OAuth 2 authorization server (its settings). */
export interface ConsoleOAuth {
  /** CONSOLE_OAUTH_CLIENT_ID: the console, a public client (PKCE, no secret). */
  clientId: string;
  /** CONSOLE_OAUTH_SCOPE, if set. */
  scope?: string;
  /** OAUTH_AUDIENCE: the resource (RFC 8707) the token is asked for, so that this gateway takes it. */
  resource: string;
  /** OAUTH_AUTHORIZATION_URL and OAUTH_TOKEN_URL, or those the issuer's discovery document names. */
  endpoints(): Promise<OAuthEndpoints>;
}

/** The settings, when the console's client id is set (loadGatewayConfig checks what goes with it). */
export function consoleOAuthOf(config: GatewayConfig): ConsoleOAuth | undefined {
  const { CONSOLE_OAUTH_CLIENT_ID, OAUTH_ISSUER, OAUTH_AUDIENCE, OAUTH_AUTHORIZATION_URL, OAUTH_TOKEN_URL } =
    config;
  if (!CONSOLE_OAUTH_CLIENT_ID || !OAUTH_ISSUER || !OAUTH_AUDIENCE) return undefined;
  const set =
    OAUTH_AUTHORIZATION_URL && OAUTH_TOKEN_URL
      ? { authorizationUrl: OAUTH_AUTHORIZATION_URL, tokenUrl: OAUTH_TOKEN_URL }
      : undefined;
  return {
    clientId: CONSOLE_OAUTH_CLIENT_ID,
    ...(config.CONSOLE_OAUTH_SCOPE === undefined ? {} : { scope: config.CONSOLE_OAUTH_SCOPE }),
    resource: OAUTH_AUDIENCE,
    endpoints: set ? async () => set : discovered(OAUTH_ISSUER),
  };
}

/** An authorization server that has not answered by then is taken as unavailable. */
const TIMEOUT_MS = 10_000;

/**
 * The endpoints the issuer publishes (OpenID Connect Discovery 1.0), read when first asked for and
 * kept; read again on the next ask after a failure, so that a server down at start is found later.
 */
function discovered(issuer: string): () => Promise<OAuthEndpoints> {
  let read: Promise<OAuthEndpoints> | undefined;
  return () => {
    read ??= discover(issuer).catch((error: unknown) => {
      read = undefined;
      throw error;
    });
    return read;
  };
}

async function discover(issuer: string): Promise<OAuthEndpoints> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  let document: Record<string, unknown>;
  try {
    const answer = await fetch(url, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
    document = (await answer.json()) as Record<string, unknown>;
  } catch {
    throw new SkillError('SERVICE_UNAVAILABLE', `The authorization server's ${url} cannot be read`);
  }
  const { issuer: named, authorization_endpoint: authorizationUrl, token_endpoint: tokenUrl } = document;
  // Section 4.3: the document names the very issuer it was asked of (else it is someone else's).
  if (named !== issuer || !isHttpUrl(authorizationUrl) || !isHttpUrl(tokenUrl)) {
    throw new SkillError(
      'SERVICE_UNAVAILABLE',
      `The authorization server's ${url} does not name issuer ${issuer} with an authorization and a token endpoint`,
    );
  }
  return { authorizationUrl, tokenUrl };
}

const isHttpUrl = (value: unknown): value is string =>
  typeof value === 'string' && /^https?:\/\//.test(value);

const CodeExchange = Type.Object(
  {
    code: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'The code the authorization server gave.',
    }),
    // RFC 7636 section 4.1: 43 to 128 unreserved characters.
    code_verifier: Type.String({ pattern: '^[A-Za-z0-9._~-]{43,128}$' }),
    redirect_uri: Type.String({
      pattern: '^https?://',
      maxLength: 2048,
      description: 'The redirect_uri of the authorization request, as sent there.',
    }),
  },
  { additionalProperties: false, title: 'An authorization code' },
);

const RefreshExchange = Type.Object(
  {
    refresh_token: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'The refresh token the authorization server gave with the access token.',
    }),
  },
  { additionalProperties: false, title: 'A refresh token' },
);

export const TokenExchange = Type.Union([CodeExchange, RefreshExchange]);
type TokenExchange = Static<typeof TokenExchange>;
const tokenExchange = new SchemaValidator(TokenExchange, 'token exchange');

/** What the console is given: the access token, its lifetime, and what renews it, when given. */
interface Tokens {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
}

/**
 * /console/sign-in (the router is mounted there): how the console may sign people in, and, with an
 * authorization server configured, the exchange of the code it comes back with for an access token
 * (authorization code with PKCE, RFC 7636), and later of the refresh token given with it for a new
 * one (RFC 6749 section 6) when the access token expires. The gateway makes the exchanges rather
 * than the browser, so that the console's CSP still lets it talk to this gateway only, and the
 * authorization server needs no CORS for them. Neither a code nor a token is logged or kept. An
 * issuer whose discovery document cannot be read (when its endpoints are not set) makes both
 * answer 503.
 */
export function consoleSignInRoutes(oauth: ConsoleOAuth | undefined): Router {
  const router = measuredRouter();
  router.get('', async (_req, res) => {
    const endpoints = await oauth?.endpoints();
    res.setHeader('Cache-Control', 'no-store').json(
      oauth && endpoints
        ? {
            oauth2: {
              authorization_url: endpoints.authorizationUrl,
              client_id: oauth.clientId,
              ...(oauth.scope === undefined ? {} : { scope: oauth.scope }),
              resource: oauth.resource,
            },
          }
        : {},
    );
  });
  router.post('/token', async (req, res) => {
    if (!oauth) {
      throw new SkillError(
        'NOT_CONFIGURED',
        'Signing in through an authorization server needs CONSOLE_OAUTH_CLIENT_ID (and the OAUTH_ settings)',
      );
    }
    const body = tokenExchange.parse(req.body);
    const token = await exchange((await oauth.endpoints()).tokenUrl, oauth, body);
    res.setHeader('Cache-Control', 'no-store').json(token);
  });
  return router;
}

/** The token request's grant (RFC 6749 sections 4.1.3 and 6), as the console's public client. */
function grantOf(oauth: ConsoleOAuth, body: TokenExchange): Record<string, string> {
  const grant: Record<string, string> =
    'refresh_token' in body
      ? { grant_type: 'refresh_token', refresh_token: body.refresh_token }
      : {
          grant_type: 'authorization_code',
          code: body.code,
          redirect_uri: body.redirect_uri,
          code_verifier: body.code_verifier,
        };
  return { ...grant, client_id: oauth.clientId, resource: oauth.resource };
}

async function exchange(tokenUrl: string, oauth: ConsoleOAuth, body: TokenExchange): Promise<Tokens> {
  let answer: Response;
  try {
    answer = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(grantOf(oauth, body)),
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw new SkillError('SERVICE_UNAVAILABLE', 'The authorization server does not answer');
  }
  const json = (await answer.json().catch(() => ({}))) as Partial<Record<keyof Tokens | 'error', unknown>>;
  // RFC 6749 section 5.2: a refused grant is a 400 (or 401) naming the error.
  if (answer.status === 400 || answer.status === 401) {
    const reason = typeof json.error === 'string' ? json.error.slice(0, 100) : `HTTP ${answer.status}`;
    const what = 'refresh_token' in body ? 'refresh token' : 'code';
    throw new SkillError('INVALID_INPUT', `The authorization server refused the ${what}: ${reason}`);
  }
  if (!answer.ok || typeof json.access_token !== 'string') {
    throw new SkillError(
      'SERVICE_UNAVAILABLE',
      `The authorization server answered ${answer.status} without a token`,
    );
  }
  return {
    access_token: json.access_token,
    ...(typeof json.expires_in === 'number' ? { expires_in: json.expires_in } : {}),
    ...(typeof json.refresh_token === 'string' ? { refresh_token: json.refresh_token } : {}),
  };
}
