/** `<target>; params`, one link of a Link header (RFC 8288). */
const LINK = /<([^>]*)>((?:\s*;\s*[^;,]*)*)/g;
const REL = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i;

/**
 * The origins that are the service's own, where the client's own credentials go: `baseUrl`'s, and
 * the one the service advertises for itself. A service reached under one name (127.0.0.1, a
 * proxy's address) may name itself otherwise in its links (localhost, its public URL); skillrun
 * says which in every answer, as the origin of its description (`Link: <…/openapi.json>;
 * rel="service-desc"`, RFC 8631). Only answers from `baseUrl`'s origin are believed: the service
 * that holds the credentials already is the one that says where else it lives.
 */
export class ServiceOrigins {
  private readonly configured: string | undefined;
  private readonly advertised = new Set<string>();

  constructor(baseUrl: string | undefined) {
    this.configured = baseUrl === undefined ? undefined : new URL(baseUrl).origin;
  }

  /** `baseUrl`'s origin, or undefined without one (then every origin counts as the service's). */
  get base(): string | undefined {
    return this.configured;
  }

  /** Whether `url` is on the service's own origin. */
  includes(url: string): boolean {
    if (this.configured === undefined) return true;
    const { origin } = new URL(url);
    return origin === this.configured || this.advertised.has(origin);
  }

  /** Takes note of an answer from `url`: from the service itself, the origin it advertises. */
  learn(url: string, headers: Headers): void {
    if (this.configured === undefined || new URL(url).origin !== this.configured) return;
    for (const description of serviceDescriptions(headers.get('link'), url)) {
      this.advertised.add(description.origin);
    }
  }
}

/** The http(s) targets of a Link header's `rel="service-desc"` links. */
function serviceDescriptions(header: string | null, base: string): URL[] {
  if (header === null) return [];
  const found: URL[] = [];
  for (const [, target = '', params = ''] of header.matchAll(LINK)) {
    const rel = REL.exec(params);
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (!relations.includes('service-desc')) continue;
    try {
      const url = new URL(target, base);
      if (url.protocol === 'http:' || url.protocol === 'https:') found.push(url);
    } catch {
      // Not a URL: not a place to send credentials to.
    }
  }
  return found;
}
