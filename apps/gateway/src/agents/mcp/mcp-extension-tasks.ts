import {
  type CreateTaskResultV2,
  TASKS_EXTENSION_ID_V2,
  type TaskV2,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type ClientCapabilities, MissingRequiredClientCapabilityError } from '@modelcontextprotocol/server';
import { type Execution, isTerminalStatus, SkillError } from '@skillrun/core';
import { pollHintMs } from '../../executions/poll-hint';
import type { RequestHeaders } from '../../http/request-headers';
import type { AgentDeps } from '../agent-deps';
import { readTask } from '../read-task';
import { endResultOf } from './mcp-end-result';
import { executionTaskFields } from './mcp-results';

/** The statuses an execution's task takes: it never waits for input, and a failed skill completes the call. */
type ExecutionTaskStatus = Extract<TaskV2['status'], 'working' | 'completed' | 'cancelled'>;

/** A task of an execution, as the extension's Task. */
type ExecutionTask = TaskV2 & { status: ExecutionTaskStatus };

/** tasks/get's answer (the extension's DetailedTask): the task, with the tool result once completed. */
export type DetailedExecutionTask = ExecutionTask & { resultType: 'complete'; result?: CallToolResult };

/** The acknowledgement tasks/update and tasks/cancel answer. */
type EmptyResult = Record<string, never>;

/** Whether the request's client declared the tasks extension (it may then be answered a task). */
export function acceptsTasks(capabilities: ClientCapabilities | undefined): boolean {
  return capabilities?.extensions?.[TASKS_EXTENSION_ID_V2] !== undefined;
}

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, which revision 2026-07-28 moved tasks to)
 * over executions: the task id is the execution id, so any gateway answers for any task. A call
 * still running at MCP_CALL_WAIT_SECONDS is handed over as a task (the server decides: the
 * extension lets handles come unsolicited to a client that declares it). tasks/get reads the
 * execution: `working` while it runs, `completed` with the tool result once it ended (a failed
 * skill too: a tool error is a result, `isError`, not a JSON-RPC error), `cancelled`. Only its
 * owner (or an admin) finds it; to anyone else it is not found, as an id nobody used (read-task.ts).
 */
export class McpExtensionTasks {
  constructor(private readonly deps: AgentDeps) {}

  /** The handle a tools/call answers for an execution still running. */
  handle(execution: Execution): CreateTaskResultV2 {
    return { resultType: 'task', ...this.task(execution) };
  }

  async get(
    taskId: string,
    headers: RequestHeaders,
    client: ClientCapabilities | undefined,
  ): Promise<DetailedExecutionTask> {
    const execution = await this.read(taskId, headers, client);
    const task = this.task(execution);
    if (task.status !== 'completed') return { resultType: 'complete', ...task };
    const result = await endResultOf(this.deps, execution, headers);
    return { resultType: 'complete', ...task, result };
  }

  /**
   * tasks/update: acknowledged once the task is found. Its responses are ignored, as the
   * extension asks of those to no outstanding request: an execution never asks its client for
   * input (no task is ever `input_required`).
   */
  async update(
    taskId: string,
    headers: RequestHeaders,
    client: ClientCapabilities | undefined,
  ): Promise<EmptyResult> {
    await this.read(taskId, headers, client);
    return {};
  }

  /** tasks/cancel: POST cancel; acknowledged also once the execution has ended (cancellation is cooperative). */
  async cancel(
    taskId: string,
    headers: RequestHeaders,
    client: ClientCapabilities | undefined,
  ): Promise<EmptyResult> {
    const execution = await this.read(taskId, headers, client);
    if (isTerminalStatus(execution.status)) return {};
    await this.deps.canceler
      .cancel({ skillId: execution.skill_id, executionId: taskId, headers })
      .catch((error) => {
        // Ended meanwhile: nothing to cancel.
        if (!(error instanceof SkillError && error.code === 'EXECUTION_ENDED')) throw error;
      });
    return {};
  }

  private task(execution: Execution): ExecutionTask {
    const status = taskStatusOf(execution.status);
    return {
      ...executionTaskFields(execution, status),
      ttlMs: this.deps.retentionSeconds * 1000,
      ...(status === 'working' ? { pollIntervalMs: pollHintMs(execution.timestamps.created_at) } : {}),
    };
  }

  /** The execution a task id names, for a client that declared the extension (-32021 otherwise). */
  private async read(
    taskId: string,
    headers: RequestHeaders,
    client: ClientCapabilities | undefined,
  ): Promise<Execution> {
    if (!acceptsTasks(client)) {
      throw new MissingRequiredClientCapabilityError({
        requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID_V2]: {} } },
      });
    }
    return readTask(this.deps, taskId, headers);
  }
}

/** The extension's status for an execution's: a skill that failed or timed out still completed the call (with an error result). */
function taskStatusOf(status: Execution['status']): ExecutionTaskStatus {
  switch (status) {
    // Awaiting an approval, it asks nothing of the caller: an approver decides (docs/approvals.md).
    case 'awaiting_approval':
    case 'accepted':
    case 'running':
      return 'working';
    case 'completed':
    case 'failed':
    case 'timeout':
      return 'completed';
    case 'canceled':
      return 'cancelled';
  }
}
