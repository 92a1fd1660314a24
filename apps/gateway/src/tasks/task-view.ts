import type { Execution, SkillDefinition, TaskView } from '@skillrun/core';

/** The task an open execution of a `task` skill is, for the people and agents who do it. */
export function taskView(
  execution: Execution,
  definition: SkillDefinition,
  inputs: Record<string, unknown>,
  baseUrl: string,
): TaskView {
  const { task } = execution;
  const base = `${baseUrl}/tasks/${execution.execution_id}`;
  return {
    execution_id: execution.execution_id,
    skill_id: execution.skill_id,
    skill_version: execution.skill_version,
    description: definition.description,
    ...(definition.task?.instructions === undefined ? {} : { instructions: definition.task.instructions }),
    inputs,
    output_schema: definition.output,
    state: task?.state ?? 'open',
    ...(task?.claimed_by === undefined ? {} : { claimed_by: task.claimed_by }),
    ...(task?.claimed_at === undefined ? {} : { claimed_at: task.claimed_at }),
    deadline: task?.deadline ?? '',
    created_at: execution.timestamps.created_at,
    caller: execution.caller,
    urls: {
      claim: `${base}/claim`,
      complete: `${base}/complete`,
      decline: `${base}/decline`,
      link: `${base}/link`,
    },
  };
}
