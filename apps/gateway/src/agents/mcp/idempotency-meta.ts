import type { RequestHeaders } from '../../http/request-headers';

/** The `_meta` key of a tools/call that carries an Idempotency-Key for that call alone. */
export const IDEMPOTENCY_META_KEY = 'io.skillrun/idempotency-key';

/**
 * The headers with the call's own Idempotency-Key, when its `_meta` names one (a session's HTTP
 * requests share their headers, so a key there would bind every call); validated as the header is.
 */
export function withIdempotencyKey(headers: RequestHeaders, key: unknown): RequestHeaders {
  if (key === undefined) return headers;
  return { ...headers, 'idempotency-key': typeof key === 'string' ? key : JSON.stringify(key) };
}
