import type { RetryPolicy } from './backoff.js';
import type { CallerType, ClientOptions } from './client-options.js';
import { CredentialHeaders } from './credentials.js';
import { ServiceOrigins } from './service-origins.js';

/** ClientOptions with their defaults, as the client's code reads them. */
export interface CompiledOptions {
  baseUrl?: string;
  headers: Readonly<Record<string, string>>;
  caller: { id: string; type: CallerType };
  /** Whether the options named the caller (else it is learnt from GET /me, with credentials). */
  callerGiven: boolean;
  retry: RetryPolicy;
  /** Whether the caller set retry.initialDelayMs (else a descriptor's backoff_ms is the initial delay). */
  ownInitialDelay: boolean;
  requestTimeoutMs: number;
  descriptorCacheMs: number;
  fetch: typeof fetch;
  /** The service's own origins: `baseUrl`'s, and the one its answers advertise. */
  origins: ServiceOrigins;
  /** The headers that carry the credentials for a request. */
  credentials: CredentialHeaders;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, initialDelayMs: 200, maxDelayMs: 10_000 };

export function compileOptions(options: ClientOptions): CompiledOptions {
  const baseUrl = options.baseUrl?.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const fetch: typeof globalThis.fetch = (input, init) => fetchImpl(input, init);
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const origins = new ServiceOrigins(baseUrl);
  return Object.freeze({
    ...(baseUrl === undefined ? {} : { baseUrl }),
    headers: Object.freeze({ ...options.headers }),
    caller: { ...(options.caller ?? { id: 'skillrun-client', type: 'service' as const }) },
    callerGiven: options.caller !== undefined,
    retry: Object.freeze({ ...DEFAULT_RETRY, ...definedOnly(options.retry ?? {}) }),
    ownInitialDelay: options.retry?.initialDelayMs !== undefined,
    requestTimeoutMs,
    descriptorCacheMs: options.descriptorCacheMs ?? 30_000,
    fetch,
    origins,
    credentials: new CredentialHeaders(options, origins, fetch, requestTimeoutMs),
  });
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
