import { type Execution, SkillError } from '@skillrun/core';
import type { RequestHeaders } from '../http/request-headers';
import type { AgentDeps } from './agent-deps';

/** The one answer for a task the caller may not see: whether it exists or not, it names only the id asked. */
function taskNotFound(taskId: string): SkillError {
  return new SkillError('EXECUTION_NOT_FOUND', `No task "${taskId}"`);
}

/**
 * The execution an MCP or A2A task id names, as the request's caller may read it. Another caller's
 * task is not found exactly as an id nobody used: the reader's own refusal names the execution's
 * skill, which would tell a guess that the id exists (and whose it is).
 */
export async function readTask(
  deps: Pick<AgentDeps, 'store' | 'executions'>,
  taskId: string,
  headers: RequestHeaders,
): Promise<Execution> {
  const stored = await deps.store.records.get(taskId);
  if (!stored) throw taskNotFound(taskId);
  try {
    return (await deps.executions.read({ skillId: stored.skill_id, executionId: taskId, headers })).execution;
  } catch (error) {
    if (error instanceof SkillError && error.code === 'EXECUTION_NOT_FOUND') throw taskNotFound(taskId);
    throw error;
  }
}
