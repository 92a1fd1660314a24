import { randomUUID } from 'node:crypto';
import type { JobPayload } from '../schemas/job-payload';

/**
 * The one constructor of a job payload (an invocation's, or a composite's step): the fields the
 * caller decides, a fresh execution id (a random UUID, never a counter) and the payload version.
 */
export function newJobPayload(fields: Omit<JobPayload, 'v' | 'execution_id'>): JobPayload {
  return { v: 1, execution_id: randomUUID(), ...fields };
}
