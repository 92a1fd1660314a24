import { SkillError } from '@skillrun/core';
import { serviceUnavailable } from './service-unavailable';

/**
 * Runs what must fail as a SkillError before the error handler sees it: whatever goes wrong on the
 * way becomes 503 SERVICE_UNAVAILABLE; SkillErrors pass through. For the agent protocols, which
 * answer in JSON-RPC and turn any other error into INTERNAL_ERROR, for the services they call,
 * and for answers that list errors (a bulk replay); everything else leaves it to the error
 * handler. It sets no timer of its own: what is not a command (waiting for a connection to be
 * ready) needs a bound of its own.
 */
export async function orServiceUnavailable<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof SkillError) throw error;
    throw serviceUnavailable();
  }
}
