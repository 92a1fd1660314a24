import { SkillError } from '@skillrun/core';
import { headerOf, type RequestHeaders } from '../http/request-headers';

/** Visible ASCII, at most 255 characters: what clients send (UUIDs, hashes, their own ids). */
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The request's Idempotency-Key, if it sent one. The draft makes it a Structured Field string
 * (`"8e03978e-…"`); a bare token, as many clients send, is taken as it is. Anything else is a 400
 * rather than a request silently run without the protection the client asked for.
 */
export function idempotencyKeyOf(headers: RequestHeaders): string | undefined {
  const raw = headerOf(headers, 'idempotency-key');
  if (raw === undefined) return undefined;
  const trimmed = raw.trim();
  const quoted = /^"((?:[^"\\]|\\.)*)"$/.exec(trimmed);
  const key = quoted ? (quoted[1] ?? '').replace(/\\(.)/g, '$1') : trimmed;
  if (!KEY.test(key)) {
    throw new SkillError('INVALID_INPUT', 'Idempotency-Key must be 1 to 255 visible ASCII characters', {
      details: [{ path: 'header:Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }],
    });
  }
  return key;
}
