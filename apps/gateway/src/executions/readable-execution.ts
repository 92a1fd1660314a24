import { type Execution, type Principal, SkillError } from '@skillrun/core';
import type { ExecutionStore } from '@skillrun/core/data';
import { asSeenBy } from '../auth/payload-visibility';
import { overseesAll } from '../auth/role-of';

/**
 * The execution, if it belongs to this skill and this reader may see it, as it may see it: an
 * authenticated caller's executions only that caller (or anyone with a role: a viewer without its
 * output). Anyone else gets the same 404 as for an id that does not exist, so that a guess learns
 * nothing.
 */
export function readable(
  record: Awaited<ReturnType<ExecutionStore['records']['read']>>,
  skillId: string,
  executionId: string,
  principal: Principal | undefined,
): Execution {
  if (
    record === null ||
    record.execution.skill_id !== skillId ||
    (record.owner !== null && !overseesAll(principal) && record.owner !== principal?.callerId)
  ) {
    throw new SkillError('EXECUTION_NOT_FOUND', `No execution "${executionId}" of skill "${skillId}"`);
  }
  return asSeenBy(principal, record.execution);
}
