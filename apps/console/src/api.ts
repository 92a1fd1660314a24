import type { ErrorBody } from '@skillrun/client';

/** A refusal by the service (or no answer: status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message);
  }
}

export interface RequestOptions {
  method?: string;
  json?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** A JWT is three base64url parts, its header a JSON object (`eyJ`); anything else is an API key. */
const JWT = /^eyJ[\w-]*\.[\w-]+\.[\w-]*$/;

function headersFor(credential: string | undefined): Record<string, string> {
  if (credential === undefined) return {};
  return JWT.test(credential) ? { authorization: `Bearer ${credential}` } : { 'x-api-key': credential };
}

/** A new credential for one that has expired, or undefined when there is none to be had. */
export type Renew = () => Promise<string | undefined>;

/**
 * The service's API, from the page's own origin, with the credential the person signed in with:
 * an API key in `X-API-Key`, or an OAuth 2 access token (a JWT) as `Authorization: Bearer`; none
 * before signing in. The credential travels in headers only, never in a URL. With `renew`, a request
 * refused 401 is asked again once with the credential it gives (an access token that expired).
 */
export class Api {
  private renewing: Promise<string | undefined> | undefined;

  constructor(
    private credential?: string,
    private readonly renew?: Renew,
  ) {}

  async fetch(path: string, options: RequestOptions = {}): Promise<Response> {
    const credential = this.credential;
    const response = await this.send(path, options, credential);
    if (response.status !== 401 || !this.renew) return response;
    const renewed = await this.renewed(credential, this.renew);
    return renewed === undefined ? response : this.send(path, options, renewed);
  }

  /**
   * The credential that replaces `expired`: already renewed by another request, or renewed now, once
   * for all the requests refused meanwhile. A renewal that fails leaves the credential as it was.
   */
  private async renewed(expired: string | undefined, renew: Renew): Promise<string | undefined> {
    if (this.credential !== expired) return this.credential;
    this.renewing ??= renew()
      .catch(() => undefined)
      .finally(() => {
        this.renewing = undefined;
      });
    const renewed = await this.renewing;
    if (renewed !== undefined) this.credential = renewed;
    return renewed;
  }

  private send(path: string, options: RequestOptions, credential: string | undefined): Promise<Response> {
    return fetch(path, {
      method: options.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...headersFor(credential),
        ...(options.json === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }),
      ...(options.signal ? { signal: options.signal } : {}),
      cache: 'no-store',
    });
  }

  /** The answer's JSON; an ApiError with the service's envelope when it refuses. */
  async request<T>(path: string, options: RequestOptions = {}): Promise<T> {
    let response: Response;
    try {
      response = await this.fetch(path, options);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new ApiError(0, { code: 'UNREACHABLE', message: 'The service does not answer.' });
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      const envelope = body as { error?: ErrorBody } | undefined;
      throw new ApiError(
        response.status,
        envelope?.error ?? { code: `HTTP_${response.status}`, message: response.statusText || 'Refused' },
      );
    }
    return body as T;
  }
}

/** A query string from the fields that have a value. */
export function query(fields: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
