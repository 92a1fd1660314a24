import type { RequestHeaders } from '../http/request-headers';
import type { Authenticator, CredentialSources } from './authenticator';
import type { Identity } from './identity';

/**
 * Who a request comes from, asked of the Authenticator at most once per request and credential
 * sources: the identity is kept beside the request's header fields, so the services a route calls
 * (a replay reads, then invokes) share one answer. Lazy: only what needs the caller asks, so the
 * health checks, the console's assets and the API docs never reach Redis. A failed identification
 * is not kept, so a later ask in the same request tries again, as it did before the memo.
 */
export class Identities {
  private readonly known = new WeakMap<RequestHeaders, Map<string, Promise<Identity>>>();

  constructor(private readonly authenticator: Pick<Authenticator, 'identify'>) {}

  of(headers: RequestHeaders, sources: CredentialSources = {}): Promise<Identity> {
    const ofRequest = this.known.get(headers) ?? new Map<string, Promise<Identity>>();
    this.known.set(headers, ofRequest);
    const key = keyOf(sources);
    const kept = ofRequest.get(key);
    if (kept) return kept;
    const identity = this.authenticator.identify(headers, sources);
    ofRequest.set(key, identity);
    identity.catch(() => ofRequest.delete(key));
    return identity;
  }
}

/** The sources as the Authenticator reads them: a body key counts only as a string. */
function keyOf({ header, bodyKey, custom }: CredentialSources): string {
  return JSON.stringify([
    header ?? null,
    typeof bodyKey === 'string' ? bodyKey : null,
    custom ? [custom.id, custom.version] : null,
  ]);
}
