import type { ClientOptions, Credentials } from './client-options.js';
import { OAuth2Tokens } from './oauth2-tokens.js';
import type { AuthConfig } from './protocol.js';
import type { ServiceOrigins } from './service-origins.js';

/**
 * Which credentials go with a request, and in which headers (spec 001 section 6.5): the client's
 * own to the service's origins (to any origin without `baseUrl`), a provider's by origin; an
 * `apiKey` in the header the skill's `auth` names (X-API-Key by default), a bearer token (given, or
 * obtained with an OAuth 2 client at the descriptor's token_url) as Authorization. A skill whose
 * auth is `none` gets none, except on our own origin, where they say who the caller is. Own
 * credentials kept from another origin are reported once per origin (`onCredentialsWithheld`).
 */
export class CredentialHeaders {
  private readonly own: Credentials;
  private readonly providers: Map<string, Credentials>;
  private readonly tokens: OAuth2Tokens;
  private readonly onWithheld: ((origin: string) => void) | undefined;
  private readonly withheldFrom = new Set<string>();

  constructor(
    options: ClientOptions,
    private readonly origins: ServiceOrigins,
    fetch: typeof globalThis.fetch,
    timeoutMs: number,
  ) {
    this.onWithheld = options.onCredentialsWithheld;
    this.own = {
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.bearerToken === undefined ? {} : { bearerToken: options.bearerToken }),
      ...(options.oauth2 === undefined ? {} : { oauth2: options.oauth2 }),
    };
    this.providers = new Map(
      Object.entries(options.providers ?? {}).map(([origin, credentials]) => [
        new URL(origin).origin,
        credentials,
      ]),
    );
    this.tokens = new OAuth2Tokens(fetch, timeoutMs);
  }

  /** The headers for a request to `url` of a skill whose auth is `auth` (none: a catalogue call). */
  async for(url: string, auth?: AuthConfig, signal?: AbortSignal): Promise<Record<string, string>> {
    const origin = new URL(url).origin;
    const ours = this.origins.includes(url);
    // A skill that wants none gets none; but its own service learns from them who the caller is.
    if (auth?.type === 'none' && !(ours && this.origins.base !== undefined)) return {};
    const credentials = this.providers.get(origin) ?? (ours ? this.own : this.withheld(origin));
    const headers: Record<string, string> = {};
    if (credentials.apiKey !== undefined) headers[auth?.header ?? 'X-API-Key'] = credentials.apiKey;
    const bearer = await this.bearer(credentials, auth, signal);
    if (bearer !== undefined) headers.Authorization = `Bearer ${bearer}`;
    return headers;
  }

  /** None for a foreign origin: the client's own are the service's, and it is told once. */
  private withheld(origin: string): Credentials {
    const held = Object.keys(this.own).length > 0;
    if (held && this.onWithheld && !this.withheldFrom.has(origin)) {
      this.withheldFrom.add(origin);
      this.onWithheld(origin);
    }
    return {};
  }

  private async bearer(credentials: Credentials, auth?: AuthConfig, signal?: AbortSignal) {
    if (typeof credentials.bearerToken === 'function') return credentials.bearerToken();
    if (credentials.bearerToken !== undefined) return credentials.bearerToken;
    if (credentials.oauth2 === undefined || auth?.type !== 'oauth2' || !auth.oauth2) return undefined;
    const scopes = Object.keys(auth.oauth2.scopes ?? {});
    return this.tokens.token(auth.oauth2.token_url, credentials.oauth2, scopes, signal);
  }
}
