import type { RetryPolicy } from './backoff.js';
import type { CallerType, ClientOptions, Credentials } from './client-options.js';
import type { AuthConfig } from './protocol.js';

/** ClientOptions with their defaults, as the client's code reads them. */
export interface CompiledOptions {
  baseUrl?: string;
  headers: Readonly<Record<string, string>>;
  caller: { id: string; type: CallerType };
  retry: RetryPolicy;
  /** Whether the caller set retry.initialDelayMs (else a descriptor's backoff_ms is the initial delay). */
  ownInitialDelay: boolean;
  requestTimeoutMs: number;
  descriptorCacheMs: number;
  fetch: typeof fetch;
  /** The headers that carry the credentials for a request to `url` of a skill whose auth is `auth`. */
  credentialHeaders(url: string, auth?: AuthConfig): Record<string, string>;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, initialDelayMs: 200, maxDelayMs: 10_000 };

export function compileOptions(options: ClientOptions): CompiledOptions {
  const baseUrl = options.baseUrl?.replace(/\/+$/, '');
  const baseOrigin = baseUrl === undefined ? undefined : new URL(baseUrl).origin;
  const own: Credentials = {
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.bearerToken === undefined ? {} : { bearerToken: options.bearerToken }),
  };
  const providers = new Map(
    Object.entries(options.providers ?? {}).map(([origin, credentials]) => [
      new URL(origin).origin,
      credentials,
    ]),
  );
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const compiled: CompiledOptions = {
    ...(baseUrl === undefined ? {} : { baseUrl }),
    headers: Object.freeze({ ...options.headers }),
    caller: { ...(options.caller ?? { id: 'skillrun-client', type: 'service' }) },
    retry: Object.freeze({ ...DEFAULT_RETRY, ...definedOnly(options.retry ?? {}) }),
    ownInitialDelay: options.retry?.initialDelayMs !== undefined,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    descriptorCacheMs: options.descriptorCacheMs ?? 30_000,
    fetch: (input, init) => fetchImpl(input, init),
    credentialHeaders(url: string, auth?: AuthConfig): Record<string, string> {
      const origin = new URL(url).origin;
      const credentials =
        providers.get(origin) ?? (baseOrigin === undefined || origin === baseOrigin ? own : {});
      // Spec 001 section 6.5: `none` is called without credentials. On our own service's origin they
      // still say who the caller is (who owns the execution, whose history lists it).
      if (auth?.type === 'none' && origin !== baseOrigin) return {};
      return credentialsFor(credentials, auth);
    },
  };
  return Object.freeze(compiled);
}

/** api_key in the header the descriptor names (X-API-Key by default), a token as a Bearer. */
function credentialsFor(credentials: Credentials, auth?: AuthConfig): Record<string, string> {
  const headers: Record<string, string> = {};
  if (credentials.apiKey !== undefined) headers[auth?.header ?? 'X-API-Key'] = credentials.apiKey;
  if (credentials.bearerToken !== undefined) headers.Authorization = `Bearer ${credentials.bearerToken}`;
  return headers;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
