import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Execution } from '@skillrun/core';
import { principalOf } from '../../auth/identity';
import type { RequestHeaders } from '../../http/request-headers';
import type { AgentDeps } from '../agent-deps';
import { endResult } from './mcp-results';

/** The output shape of a skill version no longer in the registry: its output is kept as it is. */
const UNKNOWN_OUTPUT = { output: { content_type: 'application/json', schema: {} } };

/**
 * An ended execution as the tool result a task answers (tasks/result of revision 2025-11-25,
 * tasks/get of the tasks extension): shaped by the output schema of the version that ran.
 */
export async function endResultOf(
  deps: AgentDeps,
  execution: Execution,
  headers: RequestHeaders,
): Promise<CallToolResult> {
  const viewer = principalOf(await deps.identities.of(headers));
  const descriptor = await deps.discovery
    .describe(execution.skill_id, execution.skill_version, viewer)
    .catch(() => UNKNOWN_OUTPUT);
  return endResult(descriptor, execution);
}
