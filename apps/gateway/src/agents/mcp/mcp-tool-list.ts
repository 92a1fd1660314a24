import { type McpTool, toMcpTool } from '@skillrun/core';
import { principalOf } from '../../auth/identity';
import type { RequestHeaders } from '../../http/request-headers';
import type { AgentDeps } from '../agent-deps';

export interface ToolPage {
  tools: McpTool[];
  nextCursor?: string;
}

/**
 * A page of tools/list, for either era: the skills the request's caller may see, each at its
 * latest version, in the registry's order (by id, so the same for every gateway and every call),
 * MCP_TOOLS_PAGE_SIZE a page. `tasks`: whether each tool says it may run as a task
 * (`execution.taskSupport`, revision 2025-11-25; in 2026-07-28 the server decides per call).
 */
export async function listTools(
  deps: AgentDeps,
  headers: RequestHeaders,
  cursor: string | undefined,
  options: { tasks: boolean },
): Promise<ToolPage> {
  const viewer = principalOf(await deps.identities.of(headers));
  const page = await deps.discovery.search(
    { limit: deps.toolsPageSize, ...(cursor === undefined ? {} : { cursor }) },
    viewer,
  );
  return {
    tools: page.skills.map((descriptor) => toMcpTool(descriptor, options)),
    ...(page.next_cursor === null ? {} : { nextCursor: page.next_cursor }),
  };
}
