import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import {
  type ErrorEnvelope,
  type Execution,
  type SkillDescriptor,
  SkillError,
  skillUrls,
  toStructuredContent,
} from '@skillrun/core';
import { pollHintMs } from '../../executions/poll-hint';

/** A completed execution's output: structuredContent, and the same as text for clients without it. */
export function outputResult(descriptor: Pick<SkillDescriptor, 'output'>, output: unknown): CallToolResult {
  const structuredContent = toStructuredContent(descriptor, output);
  return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent };
}

const OUTPUT_HIDDEN = 'Completed; its output is not shown to the viewer role';

/** An error a model can act on: our envelope, as the text of an `isError` result. */
export function errorResult(envelope: ErrorEnvelope): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }] };
}

/** The `_meta` key of a tool result that says what its execution spent (its usage, cost_usd included). */
export const USAGE_META_KEY = 'io.skillrun/usage';

/**
 * What an execution that has ended comes to as a tool result, with what it spent (tokens and
 * cost_usd) in `_meta` when it spent anything.
 */
export function endResult(descriptor: Pick<SkillDescriptor, 'output'>, execution: Execution): CallToolResult {
  const usage = execution.usage ? { _meta: { [USAGE_META_KEY]: execution.usage } } : {};
  if (execution.status === 'completed') {
    // A viewer's reads carry no output (payload-visibility.ts): the result says so, and no more.
    if (!('output' in execution)) return { content: [{ type: 'text', text: OUTPUT_HIDDEN }], ...usage };
    return { ...outputResult(descriptor, execution.output), ...usage };
  }
  const error =
    execution.error ?? new SkillError('INTERNAL_ERROR', `The execution ended ${execution.status}`).toBody();
  return { ...errorResult({ error }), ...usage };
}

/**
 * An execution still running when tools/call stops waiting: an error result that says so, with
 * where its result will be (it goes on; nothing is canceled).
 */
export function stillRunningResult(
  execution: Execution,
  baseUrl: string,
  waitedSeconds: number,
): CallToolResult {
  const urls = skillUrls(baseUrl, execution.skill_id);
  const id = execution.execution_id;
  const progress = execution.progress === undefined ? '' : `, progress ${execution.progress}`;
  const text = JSON.stringify({
    execution_id: id,
    status: execution.status,
    ...(execution.progress === undefined ? {} : { progress: execution.progress }),
    message: `The skill has not finished within ${waitedSeconds} s (status ${execution.status}${progress}); it goes on. Its result will be at result_url (GET; Prefer: wait=N waits for it). Call the tool as a task to follow it here instead.`,
    status_url: urls.status.replace('{execution_id}', id),
    result_url: urls.result.replace('{execution_id}', id),
  });
  return { isError: true, content: [{ type: 'text', text }] };
}

/** MCP's task status for an execution's. */
export function taskStatusOf(status: Execution['status']): Task['status'] {
  switch (status) {
    case 'awaiting_approval':
      return 'input_required';
    case 'accepted':
    case 'running':
      return 'working';
    case 'completed':
      return 'completed';
    case 'canceled':
      return 'cancelled';
    case 'failed':
    case 'timeout':
      return 'failed';
  }
}

/**
 * What a task takes from its execution alike in every revision (2025-11-25's tasks and the tasks
 * extension): the task id is the execution id, the message is its error or its progress, the times
 * are its own. The revisions differ in how they map its status (given here, already mapped) and in
 * what they call the ttl and the poll interval.
 */
export function executionTaskFields<Status extends string>(
  execution: Execution,
  status: Status,
): { taskId: string; status: Status; statusMessage?: string; createdAt: string; lastUpdatedAt: string } {
  const message =
    execution.error?.message ??
    (execution.progress === undefined ? undefined : `progress ${execution.progress}`);
  return {
    taskId: execution.execution_id,
    status,
    ...(message === undefined ? {} : { statusMessage: message }),
    createdAt: execution.timestamps.created_at,
    lastUpdatedAt: execution.timestamps.completed_at ?? execution.timestamps.updated_at,
  };
}

/** An execution as an MCP task (revision 2025-11-25). */
export function toTask(execution: Execution, settings: { ttlMs: number }): Task {
  const status = taskStatusOf(execution.status);
  return {
    ...executionTaskFields(execution, status),
    ttl: settings.ttlMs,
    ...(status === 'working' ? { pollInterval: pollHintMs(execution.timestamps.created_at) } : {}),
  };
}
