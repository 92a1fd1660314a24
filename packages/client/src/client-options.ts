import type { BatchView, Execution, InvocationContext } from './protocol.js';

export type CallerType = 'ifay' | 'service' | 'user';

/** An OAuth 2 client, for the client credentials grant at a descriptor's `auth.oauth2.token_url`. */
export interface OAuth2Client {
  clientId: string;
  clientSecret: string;
}

/** Credentials for one provider. */
export interface Credentials {
  /** Sent in the header the descriptor's `auth` names (X-API-Key when it names none). */
  apiKey?: string;
  /** Sent as `Authorization: Bearer ...`: a token, or a function asked for one at each request. */
  bearerToken?: string | (() => string | Promise<string>);
  /** For skills whose auth is oauth2 (without bearerToken): tokens are obtained and renewed. */
  oauth2?: OAuth2Client;
}

export interface ClientOptions {
  /** The skillrun service (or any spec 001 provider with a /skills catalogue) for ids and listings. */
  baseUrl?: string;
  /**
   * Credentials for `baseUrl`'s origin and the one the service advertises as its own (for every
   * origin when there is no `baseUrl`). A skill whose
   * `auth.type` is `none` is called without them, except on `baseUrl`'s origin, where they say who
   * the caller is (the owner of the execution).
   */
  apiKey?: string;
  bearerToken?: string | (() => string | Promise<string>);
  oauth2?: OAuth2Client;
  /** Credentials for other providers, by origin (`https://provider.example:8443`). */
  providers?: Record<string, Credentials>;
  /**
   * Called once for each origin the client's own credentials were kept from: not `baseUrl`'s, nor
   * the one the service advertises for itself, nor a provider's. Without it, they are kept silently.
   */
  onCredentialsWithheld?: (origin: string) => void;
  /** Sent with every request. */
  headers?: Record<string, string>;
  /**
   * `caller` of every invocation. With credentials, its id must be the credentials' caller: when
   * it is not given, the client asks `baseUrl`'s GET /me (skillrun's) once for invocations there.
   */
  caller?: { id: string; type: CallerType };
  /** Spec 001's exponential backoff (initial delay × 2^n, capped) for failed requests. */
  retry?: { maxAttempts?: number; initialDelayMs?: number; maxDelayMs?: number };
  /** How long one request may take before it is abandoned (and retried); default 30 s. */
  requestTimeoutMs?: number;
  /** How long a fetched descriptor is reused for invocations by id; default 30 s, 0 never. */
  descriptorCacheMs?: number;
  fetch?: typeof fetch;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface InvokeOptions extends CallOptions {
  /** A semver range of the skill (by id only): which version runs. */
  version?: string;
  context?: InvocationContext;
  /** Makes a repeated invoke answer the first execution; one is generated when absent. */
  idempotencyKey?: string;
}

export interface BatchOptions extends CallOptions {
  /** Items without an idempotency_key get one made from this (one is generated when absent). */
  idempotencyKey?: string;
}

export interface WaitBatchOptions extends CallOptions {
  /** Give up (SkillrunError WAIT_TIMEOUT) when the batch has not ended by then. */
  timeoutMs?: number;
  /** Called with every reading of the batch, the last one included. */
  onUpdate?: (batch: BatchView) => void;
}

export interface WaitOptions extends CallOptions {
  /** Give up (SkillrunError WAIT_TIMEOUT) when the execution has not ended by then. */
  timeoutMs?: number;
  /** Called with every state seen, the last one included. */
  onUpdate?: (execution: Execution) => void;
  /**
   * Called with each chunk of output the skill streams (skillrun's `ctx.emit`, an llm skill's text),
   * in order, once each, with its seq: over the live status only (a wait that falls back to polling
   * sees none; `stream()` never falls back).
   */
  onChunk?: (chunk: unknown, seq: number) => void;
}

export interface InvokeAndWaitOptions extends InvokeOptions, Omit<WaitOptions, 'signal'> {
  /**
   * Spec 001 section 6.6: invoke again when the execution ends `timeout` with `retry` hints, after
   * the hint's `suggested_delay_ms` × 2^n, up to its `max_attempts` executions in all. Off by
   * default: each run is a new execution, and skillrun has already retried as the skill allows.
   * `timeoutMs` applies to each run's wait.
   */
  retryTimeouts?: boolean;
}
