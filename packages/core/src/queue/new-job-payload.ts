import { randomUUID } from 'node:crypto';
import type { JobPayload } from '../schemas/job-payload';

/**
 * The one constructor of a job payload (an invocation's, or a composite's step): the fields the
 * caller decides, the execution id (a fresh random UUID, never a counter, unless the caller gives
 * one: ExecutionIds' on a sharded deployment, a schedule's run the one of its due time) and the
 * payload version.
 */
export function newJobPayload(
  fields: Omit<JobPayload, 'v' | 'execution_id'>,
  executionId: string = randomUUID(),
): JobPayload {
  return { v: 1, execution_id: executionId, ...fields };
}
