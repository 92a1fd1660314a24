import { type ErrorEnvelope, type Logger, SkillError, toErrorBody } from '@skillrun/core';
import { knownErrorOf } from '../http/known-error';

/**
 * A thrown value as our error envelope, for an agent protocol's answer, as the HTTP error handler
 * makes it: a known error as it is (bounded, never a stack; Redis away is SERVICE_UNAVAILABLE),
 * anything else logged and answered as INTERNAL_ERROR.
 */
export function envelopeOf(error: unknown, logger: Logger, where: string): ErrorEnvelope {
  const known = knownErrorOf(error);
  if (known) return { error: toErrorBody(known, 'INTERNAL_ERROR') };
  logger.error({ err: error, where }, 'unhandled error');
  return { error: new SkillError('INTERNAL_ERROR', 'An unexpected error occurred').toBody() };
}
