/** Spec 001 section 6.6's retry strategy: exponential backoff from an initial delay, capped. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** The delay before retry number `retry` (0 for the first retry): initial × 2^retry, capped. */
export function backoffDelay(
  policy: RetryPolicy,
  retry: number,
  initialDelayMs = policy.initialDelayMs,
): number {
  return Math.min(initialDelayMs * 2 ** retry, policy.maxDelayMs);
}

/**
 * How long an answer asks to wait before asking again, in ms: its `Retry-After-Ms` (the
 * sub-second hint OpenAI's and Anthropic's APIs send, and a skillrun gateway on an unfinished
 * status) if it is a number of ms, else its `Retry-After`.
 */
export function retryDelayMs(headers: Pick<Headers, 'get'>, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  return retryAfterMs(headers.get('retry-after'), now);
}

/** A `Retry-After` header (delay-seconds or an HTTP-date) in milliseconds, if it is one. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
