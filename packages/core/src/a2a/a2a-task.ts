import { type Artifact, type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import type { ErrorBody } from '../schemas/error-body';
import { EXECUTION_STATUSES, type Execution, type ExecutionStatus } from '../schemas/execution';
import type { TaskNote } from './task-note';

/** An execution's status as an A2A task state. */
export function taskStateOf(status: Execution['status']): TaskState {
  switch (status) {
    case 'awaiting_approval':
      return TaskState.TASK_STATE_INPUT_REQUIRED;
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

/** The statuses an execution in this task state has (none for a state no execution is ever in). */
export function statusesOf(state: TaskState): ExecutionStatus[] {
  return EXECUTION_STATUSES.filter((status) => taskStateOf(status) === state);
}

export function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

function agentMessage(execution: Execution, contextId: string, parts: Part[]): Message {
  return {
    messageId: `${execution.execution_id}:${execution.status}`,
    contextId,
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
function statusMessage(execution: Execution, contextId: string): Message | undefined {
  if (!execution.error) return undefined;
  return agentMessage(execution, contextId, [dataPart({ error: execution.error satisfies ErrorBody })]);
}

/** When the task's status last changed: its end, or its record's last update. */
export function statusTimestampOf(execution: Execution): string {
  return execution.timestamps.completed_at ?? execution.timestamps.updated_at;
}

/**
 * An execution as an A2A task: the task id is the execution id, its context the one the client's
 * message named (else the execution id: each message starts one); a completed one has its output
 * as an artifact, an ended one its error as the status message; metadata says which skill version
 * ran, its progress, what it spent (`usage`, with cost_usd), and how a plain-text message was routed to it.
 */
export function toA2aTask(execution: Execution, note: TaskNote = {}): Task {
  const contextId = note.contextId ?? execution.execution_id;
  return {
    id: execution.execution_id,
    contextId,
    status: {
      state: taskStateOf(execution.status),
      message: statusMessage(execution, contextId),
      timestamp: statusTimestampOf(execution),
    },
    // A viewer's reads carry no output: the task then has no artifact.
    artifacts: execution.status === 'completed' && 'output' in execution ? [outputArtifact(execution)] : [],
    history: [],
    metadata: {
      skill_id: execution.skill_id,
      skill_version: execution.skill_version,
      status: execution.status,
      ...(execution.progress === undefined ? {} : { progress: execution.progress }),
      ...(execution.usage === undefined ? {} : { usage: execution.usage }),
      ...(note.routing === undefined ? {} : { routing: note.routing }),
    },
  };
}
