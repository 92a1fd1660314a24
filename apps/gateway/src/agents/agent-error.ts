import { type ErrorEnvelope, type Logger, type SkillError, toErrorBody } from '@skillrun/core';
import { internalFault, requestIdOf } from '../http/internal-fault';
import { headerOf, type RequestHeaders } from '../http/request-headers';

/** Our error as our envelope, for an agent protocol's answer: bounded, never a stack, as over HTTP. */
export function envelopeOf(error: SkillError): ErrorEnvelope {
  return { error: toErrorBody(error, 'INTERNAL_ERROR') };
}

/**
 * A fault of our own code met answering an agent protocol's request (`where`: the protocol and
 * method): logged once as the HTTP error handler logs one (internalFault), with the request's id
 * (its X-Request-Id, or one made now), which the INTERNAL_ERROR it comes to carries.
 */
export function agentFault(
  error: unknown,
  logger: Logger,
  headers: RequestHeaders,
  where: string,
): SkillError {
  return internalFault(error, logger, { where, request_id: requestIdOf(headerOf(headers, 'x-request-id')) });
}
