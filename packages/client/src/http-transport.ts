import { backoffDelay, type RetryPolicy, retryDelayMs, sleep } from './backoff.js';
import type { CompiledOptions } from './compiled-options.js';
import type { ErrorBody } from './protocol.js';
import { SkillrunError } from './skillrun-error.js';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  json?: unknown;
  signal?: AbortSignal;
  /** How long this request may take per attempt (the client's requestTimeoutMs by default). */
  timeoutMs?: number;
  /** The policy for this request (a descriptor's backoff), the client's by default. */
  retry?: RetryPolicy;
}

export interface HttpAnswer<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** Answers worth another attempt: the request may not have been served (spec 001 section 6.6). */
const RETRIED_STATUSES: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);

/**
 * JSON over fetch with spec 001's retry strategy: a request that does not reach the provider, or
 * is answered 408, 429, 502, 503, 504 or EXECUTION_TIMEOUT with retry hints, is tried again after
 * `Retry-After` when the answer says, else after the hint's `suggested_delay_ms` × 2^n, else
 * the policy's initial delay × 2^n (capped); a Retry-After past the policy's maxDelayMs ends the
 * request with its error instead. Callers make a POST safe to repeat (Idempotency-Key).
 * An abort (the caller's signal) ends it at once with the signal's reason. Every answer's headers
 * are shown to the service's origins, which learn from them where the service says it lives.
 */
export class HttpTransport {
  constructor(private readonly options: CompiledOptions) {}

  async request<T>(request: HttpRequest): Promise<HttpAnswer<T>> {
    const policy = request.retry ?? this.options.retry;
    let maxAttempts = policy.maxAttempts;
    for (let attempt = 1; ; attempt++) {
      request.signal?.throwIfAborted();
      const outcome = await this.once<T>(request).then(
        (answer) => ({ answer }),
        (error: unknown) => {
          if (error instanceof SkillrunError && error.code === 'ENDPOINT_UNREACHABLE')
            return { unreachable: error };
          throw error;
        },
      );
      let failure: SkillrunError;
      let delayMs: number;
      if ('unreachable' in outcome) {
        failure = outcome.unreachable;
        delayMs = backoffDelay(policy, attempt - 1);
      } else {
        const { answer } = outcome;
        if (answer.status < 400) return answer;
        failure = errorOf(answer);
        if (!isRetried(answer.status, failure)) throw failure;
        const hint = failure.retry;
        if (hint?.max_attempts !== undefined)
          maxAttempts = Math.min(maxAttempts, Math.max(1, hint.max_attempts));
        const retryAfter = retryDelayMs(answer.headers);
        // Not sooner than the provider asks; and a wait longer than the policy allows is the caller's call.
        if (retryAfter !== undefined && retryAfter > policy.maxDelayMs) throw failure;
        delayMs =
          retryAfter ?? backoffDelay(policy, attempt - 1, hint?.suggested_delay_ms ?? policy.initialDelayMs);
      }
      if (attempt >= maxAttempts) throw failure;
      await sleep(delayMs, request.signal);
    }
  }

  private async once<T>(request: HttpRequest): Promise<HttpAnswer<T>> {
    const timeout = AbortSignal.timeout(request.timeoutMs ?? this.options.requestTimeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    let response: Response;
    let text: string;
    try {
      response = await this.options.fetch(request.url, {
        method: request.method,
        headers: {
          accept: 'application/json',
          ...this.options.headers,
          ...(request.json === undefined ? {} : { 'content-type': 'application/json' }),
          ...request.headers,
        },
        ...(request.json === undefined ? {} : { body: JSON.stringify(request.json) }),
        signal,
      });
      text = await response.text();
    } catch (cause) {
      if (request.signal?.aborted) throw request.signal.reason;
      const why = timeout.aborted ? 'no answer in time' : String((cause as Error)?.message ?? cause);
      throw new SkillrunError('ENDPOINT_UNREACHABLE', `${request.method} ${request.url}: ${why}`, {
        recoverable: true,
        cause,
      });
    }
    this.options.origins.learn(request.url, response.headers);
    return {
      status: response.status,
      headers: response.headers,
      body: parseBody<T>(text, response, request),
    };
  }
}

function parseBody<T>(text: string, response: Response, request: HttpRequest): T {
  if (text === '') return {} as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    if (response.status >= 400) return { text } as T;
    throw new SkillrunError(
      'UNEXPECTED_RESPONSE',
      `${request.method} ${request.url} answered ${response.status} with a body that is not JSON`,
      { httpStatus: response.status },
    );
  }
}

function isRetried(status: number, error: SkillrunError): boolean {
  return RETRIED_STATUSES.has(status) || (error.code === 'EXECUTION_TIMEOUT' && error.retry !== undefined);
}

/** The spec's error envelope of an answer, or an UNEXPECTED_RESPONSE naming its status. */
export function errorOf(answer: HttpAnswer<unknown>): SkillrunError {
  const error = (answer.body as { error?: Partial<ErrorBody> } | undefined)?.error;
  if (error && typeof error.code === 'string') {
    return SkillrunError.fromBody(
      { ...error, code: error.code, message: typeof error.message === 'string' ? error.message : error.code },
      { httpStatus: answer.status, recoverable: RETRIED_STATUSES.has(answer.status) },
    );
  }
  return new SkillrunError('UNEXPECTED_RESPONSE', `The provider answered ${answer.status}`, {
    httpStatus: answer.status,
    recoverable: RETRIED_STATUSES.has(answer.status),
    details: answer.body,
  });
}
