import { type ErrorBody, isRetryable, SkillError, toErrorBody } from '@skillrun/core';
import type { StepEntry } from '@skillrun/core/data';

/**
 * The composite's error when one of its steps failed (after that step's own retries) or could not
 * start: STEP_FAILED naming the step, with the step's own error as the cause. It is worth a retry of
 * the composite only if the step's error was. A spent budget is the composite's own BUDGET_EXCEEDED.
 */
export function stepFailed(step: string, skill: string, cause: unknown, entry?: StepEntry): ErrorBody {
  return stepFailure(step, skill, cause, entry).toBody();
}

export function stepFailure(step: string, skill: string, cause: unknown, entry?: StepEntry): SkillError {
  if (cause instanceof SkillError && cause.code === 'STEP_FAILED') return cause;
  const error = toErrorBody(cause, 'STEP_FAILED');
  const execution = entry && 'execution_id' in entry ? entry : undefined;
  const name = execution ? `${skill}@${execution.skill_version}` : skill;
  // The tree's budget is the composite's too: it ends as its step did, the spend in the details.
  if (error.code === 'BUDGET_EXCEEDED') {
    return new SkillError('BUDGET_EXCEEDED', `Step "${step}" (${name}): ${error.message}`, {
      recoverable: false,
      details: { ...(error.details as object), step },
    });
  }
  return new SkillError('STEP_FAILED', `Step "${step}" (${name}) failed: ${error.message}`, {
    recoverable: isRetryable(error),
    details: {
      step,
      skill_id: skill,
      ...(execution ? { skill_version: execution.skill_version, execution_id: execution.execution_id } : {}),
      error,
    },
  });
}

/** The cause of a step whose job ended without its record saying how (a worker died under it). */
export const LOST_STEP: ErrorBody = {
  code: 'TOOL_EXECUTION_FAILED',
  message: 'its job ended without recording an outcome',
  recoverable: true,
};
