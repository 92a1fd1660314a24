import { SkillError } from '@skillrun/core';
import { isRedisUnavailable } from '@skillrun/core/data';
import { serviceUnavailable } from './service-unavailable';

/** body-parser's error types, mapped to the catalogue. */
const BODY_ERRORS: Record<string, SkillError> = {
  'entity.too.large': new SkillError('PAYLOAD_TOO_LARGE', 'The request body is over the size limit'),
  'entity.parse.failed': new SkillError('INVALID_INPUT', 'The request body is not valid JSON'),
  'encoding.unsupported': new SkillError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content encoding'),
  'charset.unsupported': new SkillError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported charset'),
};

/** Whether body-parser refused the body because it is not JSON (JSON-RPC's Parse error). */
export function isUnparsableBody(error: unknown): boolean {
  return (error as { type?: unknown } | undefined)?.type === 'entity.parse.failed';
}

/** Any other client error Express or body-parser raise (a malformed %-escape in the path, a body that does not decode). */
const MALFORMED = new SkillError(
  'INVALID_INPUT',
  'The request is malformed (its path or body cannot be decoded)',
);

/**
 * The catalogue's error for a thrown value; undefined for a fault of the gateway's own code (which
 * its caller logs and answers INTERNAL_ERROR). The one place Redis unavailability becomes
 * SERVICE_UNAVAILABLE: only what says Redis is away (isRedisUnavailable's positive list), for the
 * HTTP error handler and for the agent protocols' answers alike, so no call needs wrapping.
 */
export function knownErrorOf(error: unknown): SkillError | undefined {
  if (error instanceof SkillError) return error;
  const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
  const known = typeof type === 'string' ? BODY_ERRORS[type] : undefined;
  if (known) return known;
  if (typeof status === 'number' && status >= 400 && status < 500) return MALFORMED;
  return isRedisUnavailable(error) ? serviceUnavailable() : undefined;
}
