import { type Artifact, type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import type { ErrorBody, Execution } from '@skillrun/core';

/** An execution's status as an A2A task state. */
export function taskStateOf(status: Execution['status']): TaskState {
  switch (status) {
    case 'accepted':
      return TaskState.TASK_STATE_SUBMITTED;
    case 'running':
      return TaskState.TASK_STATE_WORKING;
    case 'completed':
      return TaskState.TASK_STATE_COMPLETED;
    case 'canceled':
      return TaskState.TASK_STATE_CANCELED;
    case 'failed':
    case 'timeout':
      return TaskState.TASK_STATE_FAILED;
  }
}

export function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

function agentMessage(execution: Execution, parts: Part[]): Message {
  return {
    messageId: `${execution.execution_id}:${execution.status}`,
    contextId: execution.execution_id,
    taskId: execution.execution_id,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The output of a completed execution, as the task's one artifact. */
export function outputArtifact(execution: Execution): Artifact {
  return {
    artifactId: 'output',
    name: 'output',
    description: `The output of ${execution.skill_id} ${execution.skill_version}`,
    parts: [dataPart(execution.output)],
    metadata: undefined,
    extensions: [],
  };
}

/** Why it failed, timed out or was canceled: our error envelope, in the status message. */
function statusMessage(execution: Execution): Message | undefined {
  if (!execution.error) return undefined;
  return agentMessage(execution, [dataPart({ error: execution.error satisfies ErrorBody })]);
}

/**
 * An execution as an A2A task: the task id (and its context id: contexts are not kept) is the
 * execution id; a completed one has its output as an artifact, an ended one its error as the
 * status message; metadata says which skill version ran and its progress.
 */
export function toA2aTask(execution: Execution): Task {
  return {
    id: execution.execution_id,
    contextId: execution.execution_id,
    status: {
      state: taskStateOf(execution.status),
      message: statusMessage(execution),
      timestamp: execution.timestamps.completed_at ?? execution.timestamps.updated_at,
    },
    artifacts: execution.status === 'completed' ? [outputArtifact(execution)] : [],
    history: [],
    metadata: {
      skill_id: execution.skill_id,
      skill_version: execution.skill_version,
      status: execution.status,
      ...(execution.progress === undefined ? {} : { progress: execution.progress }),
    },
  };
}
