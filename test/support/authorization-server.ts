import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type JwksServer, startJwksServer } from './jwks-server';

export interface AuthorizationServer extends JwksServer {
  authorizationUrl: string;
  tokenUrl: string;
  /** The one client it knows: a public one (no secret), as the console is. */
  clientId: string;
  /** Registers a redirect URI for the client; any other is refused. */
  allowRedirect(uri: string): void;
  /** Each token request: what it sent, and whether a token was issued. */
  readonly tokenRequests: { params: Record<string, string>; granted: boolean }[];
  /** How long the access tokens it issues from now on live (300 s unless set). */
  accessTokenSeconds: number;
  /** Refuses every refresh token issued so far, as a server does when a person signs out there. */
  revokeRefreshTokens(): void;
}

interface Grant {
  user: string;
  redirectUri: string;
  challenge: string;
  resource: string;
  scope: string;
}

/** What a refresh token stands for. */
type Renewal = Pick<Grant, 'user' | 'resource' | 'scope'>;

/**
 * An OAuth 2 authorization server for tests, on 127.0.0.1 beside its JWKS (startJwksServer): the
 * authorization code grant with PKCE (S256 only), as a person meets it in a browser. It publishes
 * its endpoints at /.well-known/openid-configuration (OpenID Connect Discovery). GET /authorize
 * shows a page that asks who you are, with Allow and Deny; POST /authorize sends the browser back
 * to the redirect URI with a code (or `error=access_denied`); POST /token exchanges a code, once,
 * for a JWT access token whose `sub` is the user and whose `aud` is the resource asked for, and a
 * refresh token, which it exchanges, once, for new ones (rotation, as OAuth 2.0 for browser-based
 * apps asks of public clients).
 */
export async function startAuthorizationServer(): Promise<AuthorizationServer> {
  const clientId = 'skillrun-console';
  const redirects = new Set<string>();
  const codes = new Map<string, Grant>();
  const refreshTokens = new Map<string, Renewal>();
  const tokenRequests: AuthorizationServer['tokenRequests'] = [];
  const jwks: JwksServer = await startJwksServer({
    otherRoutes: (req, res) => void handle(req, res).catch(() => res.writeHead(500).end()),
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', jwks.issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer: jwks.issuer,
          authorization_endpoint: `${jwks.issuer}/authorize`,
          token_endpoint: `${jwks.issuer}/token`,
          jwks_uri: jwks.jwksUrl,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
        }),
      );
      return;
    }
    if (req.method === 'GET' && url.pathname === '/authorize') return authorizePage(url.searchParams, res);
    if (req.method === 'POST' && url.pathname === '/authorize') return decide(await formOf(req), res);
    if (req.method === 'POST' && url.pathname === '/token') return token(await formOf(req), res);
    res.writeHead(404).end();
  }

  function authorizePage(params: URLSearchParams, res: ServerResponse): void {
    const redirectUri = params.get('redirect_uri') ?? '';
    const valid =
      params.get('response_type') === 'code' &&
      params.get('client_id') === clientId &&
      redirects.has(redirectUri) &&
      params.get('code_challenge_method') === 'S256' &&
      /^[\w-]{43}$/.test(params.get('code_challenge') ?? '') &&
      params.has('state');
    if (!valid) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Not a request this server answers.');
      return;
    }
    const hidden = ['redirect_uri', 'state', 'code_challenge', 'resource', 'scope']
      .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(params.get(name) ?? '')}">`)
      .join('');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
      `<!doctype html><html lang="en"><head><title>Test identity provider</title></head><body>
<h1>Sign in to the test identity provider</h1>
<form method="post" action="/authorize">${hidden}
<label>User <input name="user" autocomplete="off"></label>
<button name="decision" value="allow">Allow</button> <button name="decision" value="deny">Deny</button>
</form></body></html>`,
    );
  }

  function decide(form: URLSearchParams, res: ServerResponse): void {
    const redirectUri = form.get('redirect_uri') ?? '';
    if (!redirects.has(redirectUri)) {
      res.writeHead(400).end();
      return;
    }
    const back = new URL(redirectUri);
    back.searchParams.set('state', form.get('state') ?? '');
    if (form.get('decision') === 'allow') {
      const code = randomUUID();
      codes.set(code, {
        user: form.get('user') ?? '',
        redirectUri,
        challenge: form.get('code_challenge') ?? '',
        resource: form.get('resource') ?? '',
        scope: form.get('scope') ?? '',
      });
      back.searchParams.set('code', code);
    } else {
      back.searchParams.set('error', 'access_denied');
    }
    res.writeHead(302, { location: back.toString() }).end();
  }

  /** What a token request's grant stands for, if it is one to honour (each code and refresh token once). */
  function granted(params: Record<string, string>): Renewal | undefined {
    if (params.client_id !== clientId) return undefined;
    if (params.grant_type === 'refresh_token') {
      const renewal = refreshTokens.get(params.refresh_token ?? '');
      refreshTokens.delete(params.refresh_token ?? '');
      return renewal;
    }
    const grant = codes.get(params.code ?? '');
    codes.delete(params.code ?? '');
    const verified =
      grant !== undefined &&
      params.grant_type === 'authorization_code' &&
      params.redirect_uri === grant.redirectUri &&
      createHash('sha256')
        .update(params.code_verifier ?? '')
        .digest('base64url') === grant.challenge;
    return verified ? grant : undefined;
  }

  async function token(form: URLSearchParams, res: ServerResponse): Promise<void> {
    const params = Object.fromEntries(form);
    const grant = granted(params);
    tokenRequests.push({ params, granted: grant !== undefined });
    if (!grant) {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
      return;
    }
    const expiresIn = server.accessTokenSeconds;
    const accessToken = await jwks.sign(
      { sub: grant.user, scope: grant.scope },
      { audience: grant.resource, expiresIn },
    );
    const refreshToken = randomUUID();
    refreshTokens.set(refreshToken, { user: grant.user, resource: grant.resource, scope: grant.scope });
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(
      JSON.stringify({
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: expiresIn,
        refresh_token: refreshToken,
      }),
    );
  }

  const server: AuthorizationServer = Object.assign(jwks, {
    authorizationUrl: `${jwks.issuer}/authorize`,
    tokenUrl: `${jwks.issuer}/token`,
    clientId,
    allowRedirect: (uri: string) => void redirects.add(uri),
    tokenRequests,
    accessTokenSeconds: 300,
    revokeRefreshTokens: () => refreshTokens.clear(),
  });
  return server;
}

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
