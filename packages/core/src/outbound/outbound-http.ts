import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Agent } from 'undici';
import { AddressPolicy } from './address-policy';

/** An outbound call refused before or while it was made; `reason` says which bound it broke. */
export class OutboundRefusal extends Error {
  override readonly name = 'OutboundRefusal';
  constructor(
    readonly reason: 'scheme' | 'credentials' | 'address' | 'redirect' | 'too-large',
    message: string,
  ) {
    super(message);
  }
}

export interface OutboundHttpOptions {
  /** Address ranges reachable even though not public (see AddressPolicy). */
  allow?: readonly string[];
  /** Longest a call may take, connection to last byte, unless its own signal ends it sooner. */
  timeoutMs: number;
  /** Largest response body read; a longer one is refused. */
  maxResponseBytes: number;
}

export interface OutboundRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * HTTP for calls to places a user named (remote providers, webhooks), safe against server-side
 * request forgery: http(s) only, no credentials in the URL, and only public addresses unless
 * allowed. A name is resolved once, every address it resolves to is checked, and the connection
 * is made to the address checked (undici's connector uses this lookup), so a name cannot resolve
 * to a public address for the check and a private one for the connection. Redirects are not
 * followed (a 3xx is refused: its target was never checked), and the time and the size of the
 * answer are bounded.
 */
export class OutboundHttp {
  private readonly policy: AddressPolicy;
  /**
   * undici and this client's agent, loaded on the first call: some 5 MB of memory that a gateway
   * which calls out to no one (no custom authorizer, no remote provider) does not pay for.
   */
  private client: Promise<{ agent: Agent; request: typeof import('undici').request }> | undefined;

  constructor(private readonly options: OutboundHttpOptions) {
    this.policy = new AddressPolicy(options.allow);
  }

  async send(url: string, init: OutboundRequest = {}): Promise<OutboundResponse> {
    const target = checkedUrl(url, this.policy);
    const signals = [AbortSignal.timeout(this.options.timeoutMs), ...(init.signal ? [init.signal] : [])];
    const { agent, request } = await this.clientOf();
    const answer = await request(target, {
      method: init.method ?? 'GET',
      ...(init.headers ? { headers: init.headers } : {}),
      ...(init.body === undefined ? {} : { body: init.body }),
      dispatcher: agent,
      signal: AbortSignal.any(signals),
    });
    if (answer.statusCode >= 300 && answer.statusCode < 400) {
      await answer.body.dump();
      throw new OutboundRefusal(
        'redirect',
        `${target.origin} answered ${answer.statusCode} (a redirect): redirects are not followed`,
      );
    }
    return {
      status: answer.statusCode,
      headers: answer.headers,
      body: await this.bounded(answer.body, target),
    };
  }

  async close(): Promise<void> {
    if (this.client) await (await this.client).agent.close();
  }

  private clientOf(): NonNullable<OutboundHttp['client']> {
    this.client ??= import('undici').then(({ Agent, request }) => ({
      agent: new Agent({
        connect: { lookup: this.checkedLookup, timeout: this.options.timeoutMs },
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      }),
      request,
    }));
    return this.client;
  }

  private readonly checkedLookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      for (const { address } of addresses) {
        const refusal = this.policy.refusal(address);
        if (refusal) return callback(addressRefused(hostname, address, refusal), '', 0);
      }
      const [first] = addresses;
      if (!first) return callback(new Error(`${hostname} resolves to no address`), '', 0);
      if (options.all)
        return (callback as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      return callback(null, first.address, first.family);
    });
  };

  private async bounded(body: AsyncIterable<Buffer> & { destroy(): void }, target: URL): Promise<string> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of body) {
      bytes += chunk.length;
      if (bytes > this.options.maxResponseBytes) {
        body.destroy();
        throw new OutboundRefusal(
          'too-large',
          `${target.origin} answered more than ${this.options.maxResponseBytes} bytes`,
        );
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}

/**
 * The URL, if an outbound call may be made to it as far as can be told without resolving its name:
 * http(s), no credentials, and an address written in it (connected to without a lookup) allowed.
 * Throws OutboundRefusal otherwise; a name's addresses are checked when the call is made.
 */
export function checkedUrl(url: string, policy: AddressPolicy): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new OutboundRefusal('scheme', `"${url.slice(0, 200)}" is not a URL`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new OutboundRefusal('scheme', `${target.protocol} URLs are refused: only http and https`);
  }
  if (target.username || target.password) {
    throw new OutboundRefusal('credentials', 'URLs with credentials in them are refused');
  }
  const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const refusal = /^[\d.]+$|:/.test(literal) ? policy.refusal(literal) : undefined;
  if (refusal) throw addressRefused(target.hostname, literal, refusal);
  return target;
}

function addressRefused(hostname: string, address: string, range: string): OutboundRefusal {
  const named = hostname === address ? address : `${hostname} (${address})`;
  return new OutboundRefusal('address', `${named} is a ${range} address: refused unless allowed`);
}
