import { type ErrorEnvelope, type Logger, SkillError, toErrorBody } from '@skillrun/core';

/**
 * A thrown value as our error envelope, for an agent protocol's answer: a SkillError as it is
 * (bounded, never a stack), anything else logged and answered as INTERNAL_ERROR, as the HTTP error
 * handler does.
 */
export function envelopeOf(error: unknown, logger: Logger, where: string): ErrorEnvelope {
  if (error instanceof SkillError) return { error: toErrorBody(error, 'INTERNAL_ERROR') };
  logger.error({ err: error, where }, 'unhandled error');
  return { error: new SkillError('INTERNAL_ERROR', 'An unexpected error occurred').toBody() };
}
