import type { OAuth2Client } from './client-options.js';
import { SkillrunError } from './skillrun-error.js';

/** Renewed this long before the provider says a token expires. */
const EXPIRY_MARGIN_MS = 30_000;
/** How long a token whose answer names no expires_in is used. */
const DEFAULT_LIFETIME_MS = 300_000;

/**
 * OAuth 2.0 access tokens by the client credentials grant (RFC 6749 section 4.4) at a
 * descriptor's `auth.oauth2.token_url`, the client authenticated with HTTP Basic (section 2.3.1),
 * each cached until shortly before it expires. Concurrent calls share one token request.
 */
export class OAuth2Tokens {
  private readonly tokens = new Map<string, Promise<{ token: string; expiresAt: number }>>();

  constructor(
    private readonly fetch: typeof globalThis.fetch,
    private readonly timeoutMs: number,
  ) {}

  async token(
    tokenUrl: string,
    client: OAuth2Client,
    scopes: string[],
    signal?: AbortSignal,
  ): Promise<string> {
    const key = `${tokenUrl}\n${client.clientId}\n${scopes.join(' ')}`;
    const cached = this.tokens.get(key);
    if (cached) {
      const held = await cached.catch(() => undefined);
      if (held && held.expiresAt > Date.now()) return held.token;
      if (this.tokens.get(key) === cached) this.tokens.delete(key);
    }
    const pending = this.request(tokenUrl, client, scopes, signal);
    this.tokens.set(key, pending);
    pending.catch(() => this.tokens.get(key) === pending && this.tokens.delete(key));
    return (await pending).token;
  }

  private async request(tokenUrl: string, client: OAuth2Client, scopes: string[], signal?: AbortSignal) {
    const basic = btoa(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`);
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const answer = await this.fetch(tokenUrl, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        ...(scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
      }).toString(),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    }).catch((cause: unknown) => {
      if (signal?.aborted) throw signal.reason;
      throw new SkillrunError('ENDPOINT_UNREACHABLE', `POST ${tokenUrl}: ${String(cause)}`, {
        recoverable: true,
        cause,
      });
    });
    const body = (await answer.json().catch(() => ({}))) as {
      access_token?: unknown;
      expires_in?: unknown;
      error?: unknown;
      error_description?: unknown;
    };
    if (!answer.ok || typeof body.access_token !== 'string') {
      const why =
        typeof body.error_description === 'string' ? body.error_description : String(body.error ?? '');
      throw new SkillrunError(
        'AUTH_REQUIRED',
        `The token endpoint refused the client: ${answer.status} ${why}`,
        {
          httpStatus: answer.status,
          details: { required_auth_type: 'oauth2', token_url: tokenUrl, answer: body },
        },
      );
    }
    const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : DEFAULT_LIFETIME_MS;
    return { token: body.access_token, expiresAt: Date.now() + Math.max(0, lifetimeMs - EXPIRY_MARGIN_MS) };
  }
}
