import { type OutboundHttp, type SkillDescriptor, SkillError } from '@skillrun/core';
import type { ProviderCredentialsStore } from '@skillrun/core/data';

interface CachedToken {
  token: string;
  /** Epoch ms after which it is fetched again. */
  renewAt: number;
}

/** A token is renewed this long before it expires, so that none expires on the way. */
const RENEW_EARLY_MS = 30_000;

/**
 * The headers that authenticate us to a remote provider, as its descriptor's `auth` says: `api_key`
 * in its named header (X-API-Key by default), `oauth2` as a bearer token got by the client
 * credentials grant from its `token_url` (cached per skill until shortly before it expires), or
 * nothing for `none`. Credentials come from the encrypted store and go to that provider only.
 */
export class ProviderAuth {
  private readonly tokens = new Map<string, CachedToken>();

  constructor(
    private readonly credentials: ProviderCredentialsStore | undefined,
    private readonly http: OutboundHttp,
  ) {}

  /** The caller id the provider knows our credentials by, if the admin said. */
  async callerIdFor(descriptor: SkillDescriptor): Promise<string | undefined> {
    if (descriptor.auth.type === 'none') return undefined;
    return (await this.credentials?.get(descriptor.id))?.caller_id;
  }

  async headersFor(descriptor: SkillDescriptor, signal: AbortSignal): Promise<Record<string, string>> {
    const { auth } = descriptor;
    if (auth.type === 'none') return {};
    if (auth.type === 'custom') {
      throw unavailable(descriptor, 'its auth is "custom", which a consumer cannot present');
    }
    const stored = await this.credentials?.get(descriptor.id);
    if (auth.type === 'api_key') {
      if (!stored || !('api_key' in stored))
        throw unavailable(descriptor, 'no api_key is set for its provider');
      return { [auth.header ?? 'X-API-Key']: stored.api_key };
    }
    if (!stored || !('client_id' in stored) || !auth.oauth2) {
      throw unavailable(descriptor, 'no OAuth 2 client (client_id, client_secret) is set for its provider');
    }
    return { authorization: `Bearer ${await this.token(descriptor, stored, auth.oauth2.token_url, signal)}` };
  }

  /** Forgets a token the provider refused (401), so that the next call gets a fresh one. */
  forget(descriptor: SkillDescriptor): void {
    this.tokens.delete(descriptor.id);
  }

  private async token(
    descriptor: SkillDescriptor,
    client: { client_id: string; client_secret: string },
    tokenUrl: string,
    signal: AbortSignal,
  ): Promise<string> {
    const cached = this.tokens.get(descriptor.id);
    if (cached && cached.renewAt > Date.now()) return cached.token;
    const answer = await this.http.send(tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'skill:invoke skill:read',
      }).toString(),
      signal,
    });
    const body = parseJson(answer.body) as { access_token?: unknown; expires_in?: unknown } | undefined;
    if (answer.status !== 200 || typeof body?.access_token !== 'string') {
      throw unavailable(descriptor, `its token_url answered ${answer.status} without an access_token`);
    }
    const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 300_000;
    this.tokens.set(descriptor.id, {
      token: body.access_token,
      renewAt: Date.now() + Math.max(0, lifetimeMs - RENEW_EARLY_MS),
    });
    return body.access_token;
  }
}

function unavailable(descriptor: SkillDescriptor, why: string): SkillError {
  return new SkillError(
    'TOOL_NOT_AVAILABLE',
    `${descriptor.id}@${descriptor.version} cannot be called: ${why}`,
    {
      recoverable: false,
    },
  );
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
