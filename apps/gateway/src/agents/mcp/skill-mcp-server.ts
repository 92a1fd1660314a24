import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { toMcpTool } from '@skillrun/core';
import { principalOf } from '../../auth/identity';
import { knownErrorOf } from '../../http/known-error';
import type { RequestHeaders } from '../../http/request-headers';
import type { AgentDeps } from '../agent-deps';
import { McpTasks } from './mcp-tasks';
import { McpToolCalls } from './mcp-tool-calls';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The server's name and version, as `initialize` answers them. */
export const MCP_SERVER_INFO = { name: 'skillrun', version: '0.1.0' };

/** The `_meta` key of a tools/call that carries an Idempotency-Key for that call alone. */
export const IDEMPOTENCY_META_KEY = 'io.skillrun/idempotency-key';

/**
 * The headers with the call's own Idempotency-Key, when its `_meta` names one (a session's HTTP
 * requests share their headers, so a key there would bind every call); validated as the header is.
 */
function withIdempotencyKey(headers: RequestHeaders, key: unknown): RequestHeaders {
  if (key === undefined) return headers;
  return { ...headers, 'idempotency-key': typeof key === 'string' ? key : JSON.stringify(key) };
}

/** The request's header fields (credentials), as the transport hands them to each handler. */
function headersOf(extra: Extra): RequestHeaders {
  return (extra.requestInfo?.headers ?? {}) as RequestHeaders;
}

function addressOf(extra: Extra): string {
  const address = extra.authInfo?.extra?.address;
  return typeof address === 'string' ? address : 'unknown';
}

/**
 * One MCP session's server (`closing` aborts when the session ends or the gateway shuts down): tools are the skills the caller may see, calls run through the queue.
 * Each request is authorized by its own credentials (the session was bound to its caller when it
 * was initialized, see McpSessions).
 */
export function skillMcpServer(deps: AgentDeps, closing: AbortSignal): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: {
      tools: { listChanged: true },
      tasks: { cancel: {}, requests: { tools: { call: {} } } },
    },
    instructions:
      "Each tool is a skill of this skillrun service. A call runs the skill on the service's workers and answers its output; one that takes longer than the service's bound answers where its result will be, or call it as a task.",
  });
  const calls = new McpToolCalls(deps);
  const tasks = new McpTasks(deps, calls);

  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    try {
      const viewer = principalOf(await deps.identities.of(headersOf(extra)));
      const cursor = request.params?.cursor;
      const page = await deps.discovery.search(
        { limit: deps.toolsPageSize, ...(cursor === undefined ? {} : { cursor }) },
        viewer,
      );
      return {
        tools: page.skills.map((descriptor) => ({ ...toMcpTool(descriptor, { tasks: true }) })),
        ...(page.next_cursor === null ? {} : { nextCursor: page.next_cursor }),
      };
    } catch (error) {
      const known = knownErrorOf(error);
      if (!known) throw error;
      const code = known.code === 'SERVICE_UNAVAILABLE' ? ErrorCode.InternalError : ErrorCode.InvalidParams;
      throw new McpError(code, known.message, { error: known.toBody() });
    }
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {}, _meta, task } = request.params;
    const token = _meta?.progressToken;
    return calls.call({
      name,
      arguments: args,
      ...(task ? { task } : {}),
      headers: withIdempotencyKey(headersOf(extra), _meta?.[IDEMPOTENCY_META_KEY]),
      address: addressOf(extra),
      signal: extra.signal,
      stop: closing,
      ...(token === undefined
        ? {}
        : {
            progress: (progress, message) =>
              extra.sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress, total: 100, message },
              }),
          }),
    });
  });

  server.setRequestHandler(GetTaskRequestSchema, (request, extra) =>
    tasks.get(request.params.taskId, headersOf(extra)),
  );
  server.setRequestHandler(GetTaskPayloadRequestSchema, (request, extra) =>
    tasks.result(request.params.taskId, headersOf(extra), AbortSignal.any([extra.signal, closing])),
  );
  server.setRequestHandler(CancelTaskRequestSchema, (request, extra) =>
    tasks.cancel(request.params.taskId, headersOf(extra)),
  );
  return server;
}
