import type { CallToolResult, GetTaskResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { type Execution, isTerminalStatus } from '@skillrun/core';
import type { RequestHeaders } from '../../http/request-headers';
import type { AgentDeps } from '../agent-deps';
import { followExecution } from '../execution-follower';
import { readTask } from '../read-task';
import { endResultOf } from './mcp-end-result';
import { toTask } from './mcp-results';
import type { McpToolCalls } from './mcp-tool-calls';

/** The `_meta` key that ties a tasks/result answer to its task (revision 2025-11-25). */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/**
 * MCP tasks (revision 2025-11-25, "Tasks", experimental in the SDK) mapped onto executions: the
 * task id is the execution id, tasks/get reads it, tasks/result waits for its end (as GET result
 * with Prefer: wait does, without a bound), tasks/cancel is POST cancel. Only the caller that owns
 * the execution (or an admin) finds it: to anyone else it is not found, as an id nobody used (read-task.ts).
 * What they throw is answered by the server's handlers (withMcpErrors).
 */
export class McpTasks {
  constructor(
    private readonly deps: AgentDeps,
    private readonly calls: McpToolCalls,
  ) {}

  async get(taskId: string, headers: RequestHeaders): Promise<GetTaskResult> {
    const execution = await this.read(taskId, headers);
    return toTask(execution, this.calls.taskSettings());
  }

  async result(taskId: string, headers: RequestHeaders, signal: AbortSignal): Promise<CallToolResult> {
    const first = await this.read(taskId, headers);
    const execution = await followExecution(this.deps.executions, {
      skillId: first.skill_id,
      executionId: taskId,
      headers,
      boundMs: Number.POSITIVE_INFINITY,
      signal,
    });
    if (!isTerminalStatus(execution.status))
      throw new McpError(ErrorCode.InternalError, 'The request was cancelled');
    const result = await endResultOf(this.deps, execution, headers);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK]: { taskId } } };
  }

  async cancel(taskId: string, headers: RequestHeaders): Promise<GetTaskResult> {
    const execution = await this.read(taskId, headers);
    if (isTerminalStatus(execution.status)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Cannot cancel task: already in terminal status ${toTask(execution, this.calls.taskSettings()).status}`,
      );
    }
    const canceled = await this.deps.canceler.cancel({
      skillId: execution.skill_id,
      executionId: taskId,
      headers,
    });
    return toTask(canceled, this.calls.taskSettings());
  }

  /** The execution a task id names, as the request's caller may read it. */
  private read(taskId: string, headers: RequestHeaders): Promise<Execution> {
    return readTask(this.deps, taskId, headers);
  }
}
