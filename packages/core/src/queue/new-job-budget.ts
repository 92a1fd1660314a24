import type { Budget, JobBudget } from '../schemas/budget';

/**
 * The budget an invocation's job carries (context.budget): the execution is its tree's root, and
 * max_duration_ms runs from its acceptance (`now`).
 */
export function newJobBudget(limits: Budget, executionId: string, now: number): JobBudget {
  return {
    root: executionId,
    limits,
    ...(limits.max_duration_ms === undefined ? {} : { ends_at: now + limits.max_duration_ms }),
  };
}
