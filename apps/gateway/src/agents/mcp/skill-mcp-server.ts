import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHeaders } from '../../http/request-headers';
import type { AgentDeps } from '../agent-deps';
import { BUDGET_META_KEY } from './budget-meta';
import { IDEMPOTENCY_META_KEY, withIdempotencyKey } from './idempotency-meta';
import { MCP_INSTRUCTIONS, MCP_SERVER_INFO } from './mcp-server-identity';
import { McpTasks } from './mcp-tasks';
import { McpToolCalls } from './mcp-tool-calls';
import { listTools } from './mcp-tool-list';
import { withMcpErrors } from './with-mcp-errors';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The request's header fields (credentials), as the transport hands them to each handler. */
function headersOf(extra: Extra): RequestHeaders {
  return (extra.requestInfo?.headers ?? {}) as RequestHeaders;
}

function addressOf(extra: Extra): string {
  const address = extra.authInfo?.extra?.address;
  return typeof address === 'string' ? address : 'unknown';
}

/**
 * One MCP session's server, revision 2025-11-25 on SDK 1.x (`closing` aborts when the session
 * ends or the gateway shuts down): tools are the skills the caller may see, calls run through the
 * queue. Each request is authorized by its own credentials (the session was bound to its caller
 * when it was initialized, see McpSessions).
 */
export function skillMcpServer(deps: AgentDeps, closing: AbortSignal): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: {
      tools: { listChanged: true },
      tasks: { cancel: {}, requests: { tools: { call: {} } } },
    },
    instructions: MCP_INSTRUCTIONS,
  });
  const calls = new McpToolCalls(deps);
  const tasks = new McpTasks(deps, calls);

  const answered = withMcpErrors(deps, {
    error: ({ code, message, data }) => new McpError(code, message, data),
    headersOf,
  });

  server.setRequestHandler(
    ListToolsRequestSchema,
    answered('tools/list', async (request, extra: Extra) => {
      const page = await listTools(deps, headersOf(extra), request.params?.cursor, { tasks: true });
      // Copies: the SDK's result types have index signatures, which our interfaces lack.
      return { ...page, tools: page.tools.map((tool) => ({ ...tool })) };
    }),
  );

  server.setRequestHandler(
    CallToolRequestSchema,
    answered('tools/call', async (request, extra: Extra) => {
      const { name, arguments: args = {}, _meta, task } = request.params;
      const token = _meta?.progressToken;
      return calls.call({
        name,
        arguments: args,
        ...(task ? { task } : {}),
        headers: withIdempotencyKey(headersOf(extra), _meta?.[IDEMPOTENCY_META_KEY]),
        ...(_meta?.[BUDGET_META_KEY] === undefined ? {} : { budget: _meta[BUDGET_META_KEY] }),
        address: addressOf(extra),
        signal: extra.signal,
        stop: closing,
        ...(token === undefined
          ? {}
          : {
              progress: (report) =>
                extra.sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken: token, ...report },
                }),
            }),
      });
    }),
  );

  server.setRequestHandler(
    GetTaskRequestSchema,
    answered('tasks/get', (request, extra: Extra) => tasks.get(request.params.taskId, headersOf(extra))),
  );
  server.setRequestHandler(
    GetTaskPayloadRequestSchema,
    answered('tasks/result', (request, extra: Extra) =>
      tasks.result(request.params.taskId, headersOf(extra), AbortSignal.any([extra.signal, closing])),
    ),
  );
  server.setRequestHandler(
    CancelTaskRequestSchema,
    answered('tasks/cancel', (request, extra: Extra) =>
      tasks.cancel(request.params.taskId, headersOf(extra)),
    ),
  );
  return server;
}
