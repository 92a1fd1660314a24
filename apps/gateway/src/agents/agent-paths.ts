import { ToolDefinitions, ToolFormatQuery, ToolListQuery } from '@skillrun/core';
import { ERRORS, errors, json, queryParameters, skillId } from '../http/openapi-parts';

const tags = ['agents'];
const toolDefinitions = {
  description: 'The tools, and per skill its tool name, whether it is strict (OpenAI) and why not.',
  content: { 'application/json': { schema: ToolDefinitions } },
};
const MCP =
  'MCP (Model Context Protocol) over Streamable HTTP, dual-era. Revision 2026-07-28, stateless: a POST whose JSON-RPC request carries the per-request `_meta` envelope (`io.modelcontextprotocol/protocolVersion`, `…/clientCapabilities`, `…/clientInfo`) and the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers is answered on its own, by any gateway (server/discover, tools/list, tools/call, and the tasks extension: tasks/get, tasks/update, tasks/cancel; a `task` skill called by a client that declares form elicitation answers `input_required`, asking for its output, and the retry with `inputResponses` and the `requestState` hands the task in; subscriptions/listen opens a stream of notifications/tools/list_changed, acknowledged first, which replaces the GET stream); a revision not served is 400 with UnsupportedProtocolVersionError (-32022), a header that does not match the body 400 with HeaderMismatch (-32020). Revision 2025-11-25 (2025-06-18 and earlier are negotiated too), with sessions (`Mcp-Session-Id`): POST carries JSON-RPC messages (the first an `initialize`, answered with the session id), GET opens the session\'s stream of server notifications (tools/list_changed), DELETE ends the session. A request whose Origin header is neither the origin of PUBLIC_BASE_URL, one of MCP_ALLOWED_ORIGINS, nor its own address or localhost is 403 (DNS rebinding). Credentials as for every endpoint (X-API-Key or Authorization: Bearer); a session belongs to the caller that initialized it (an anonymous one to its address), who may hold MCP_MAX_SESSIONS_PER_CALLER (MCP_MAX_SESSIONS_PER_ADDRESS) of them; at that cap its least recently used session not answering a request is closed to admit a new one (429 when each of them is answering one), and at MCP_MAX_SESSIONS any such session, whoever holds it (503 when every session is). Every error is a JSON-RPC error response; those listed here carry our envelope as `error.data` (a body that is not JSON is -32700 Parse error). See docs/agents.md, "MCP".';
/** Error answers of a JSON-RPC endpoint: JSON-RPC error responses (our envelope as `error.data`). */
const jsonRpcErrors = (...statuses: string[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: ERRORS[status], content: json('JsonRpcErrorResponse') },
    ]),
  );
const mcpErrors = jsonRpcErrors('400', '401', '403', '404', '429', '503');
const A2A_REST =
  "A2A 1.0's HTTP+JSON binding, served by @a2a-js/sdk's router under /a2a/rest (also with a tenant path segment, ListTasks at GET /a2a/rest/tasks, and push notification configurations under /a2a/rest/tasks/{id}/pushNotificationConfigs). Same mapping onto executions as JSON-RPC at /a2a; A2A's errors are answered in the binding's own error form, invalid credentials as 401 in our envelope. See docs/agents.md, \"A2A\".";
const taskId = { name: 'task_id', in: 'path', required: true, schema: { type: 'string' } };
const configId = { name: 'config_id', in: 'path', required: true, schema: { type: 'string' } };
const a2aJson = (description: string) => ({
  description,
  content: { 'application/json': { schema: { type: 'object' } } },
});
const a2aStream = {
  description: 'Server-sent events: the task, its status updates, the output as an artifact update.',
  content: { 'text/event-stream': { schema: { type: 'string' } } },
};

/** Ours: skills for agents (tool definitions, MCP, A2A). */
export const agentPaths = {
  '/tools': {
    get: {
      operationId: 'listTools',
      summary: 'The skills the caller may see as tool definitions: OpenAI function tools or MCP tools (ours)',
      description:
        'The search of GET /skills (each skill at its latest version, a page at a time), each skill as a tool of `format`: `openai` (Chat Completions), `openai-responses` (Responses API) or `mcp`. An OpenAI tool is `strict: true` when strict mode takes its parameters unchanged; otherwise it is sent as the skill takes it, `strict: false`, and `skills[].notes` says why (each place in the schema and the reason).',
      tags,
      parameters: queryParameters(ToolListQuery),
      responses: { '200': toolDefinitions, ...errors('400', '503') },
    },
  },
  '/skills/{skill_id}/tools': {
    get: {
      operationId: 'getSkillTools',
      summary: 'One skill as a tool definition (ours)',
      description: 'As GET /tools, for one skill at a version range (the latest by default).',
      tags,
      parameters: [skillId, ...queryParameters(ToolFormatQuery)],
      responses: { '200': toolDefinitions, ...errors('400', '404', '503') },
    },
  },
  '/.well-known/agent-card.json': {
    get: {
      operationId: 'getAgentCard',
      summary: 'The A2A Agent Card of this service, built from the registry (ours)',
      description:
        'A2A 1.0 (its JSON form): one agent whose skills are the skills anyone may discover (id, name, description, tags, an example), security schemes `apiKey` (X-API-Key) and `bearer`, and the JSON-RPC interface at /a2a (protocol versions 1.0 and 0.3).',
      tags,
      responses: {
        '200': {
          description: 'The Agent Card.',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
        ...errors('503'),
      },
    },
  },
  '/a2a': {
    post: {
      operationId: 'a2aJsonRpc',
      summary:
        'A2A over JSON-RPC: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask, push notification configurations (ours)',
      description:
        'A2A 1.0 with `A2A-Version: 1.0`, or without the header when the method is a 1.0 name (SendMessage, GetTask, ...: none has a slash); the v0.3 methods (message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe) when the header says 0.3, or is absent and the method is a 0.3 name. A message names the skill in its metadata (`skill_id`) and carries the inputs in a data part; the task is the skill\'s execution (task id = execution id). Every answer is JSON-RPC: a body that is not JSON is 400 with -32700 Parse error (id null), one that is not a JSON-RPC request -32600 Invalid Request (200), invalid credentials 401 with our envelope as `error.data`; A2A\'s errors are JSON-RPC errors whose ErrorInfo metadata holds our error code and envelope. See docs/agents.md, "A2A".',
      tags,
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: {
        '200': {
          description:
            'The JSON-RPC answer, or a stream of events (text/event-stream) for the streaming methods.',
          content: {
            'application/json': { schema: { type: 'object' } },
            'text/event-stream': { schema: { type: 'string' } },
          },
        },
        ...jsonRpcErrors('400', '401', '503'),
      },
    },
  },
  '/a2a/rest/message:send': {
    post: {
      operationId: 'a2aRestSendMessage',
      summary: 'A2A HTTP+JSON binding: SendMessage (ours)',
      description: A2A_REST,
      tags,
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: { '200': a2aJson('The task (or a message).'), ...errors('401', '503') },
    },
  },
  '/a2a/rest/message:stream': {
    post: {
      operationId: 'a2aRestSendStreamingMessage',
      summary: 'A2A HTTP+JSON binding: SendStreamingMessage (ours)',
      description: A2A_REST,
      tags,
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: { '200': a2aStream, ...errors('401', '503') },
    },
  },
  '/a2a/rest/tasks': {
    get: {
      operationId: 'a2aRestListTasks',
      summary: "A2A HTTP+JSON binding: ListTasks, the caller's own tasks (ours)",
      description: `${A2A_REST} Query: contextId, status, statusTimestampAfter, pageSize (1-100, 50), pageToken, includeArtifacts, historyLength.`,
      tags,
      responses: { '200': a2aJson('tasks, nextPageToken, pageSize, totalSize.'), ...errors('401', '503') },
    },
  },
  '/a2a/rest/tasks/{task_id}/pushNotificationConfigs': {
    post: {
      operationId: 'a2aRestCreateTaskPushNotificationConfig',
      summary: 'A2A HTTP+JSON binding: CreateTaskPushNotificationConfig (ours)',
      description: A2A_REST,
      tags,
      parameters: [taskId],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: { '200': a2aJson('The configuration (never its credentials).'), ...errors('401', '503') },
    },
    get: {
      operationId: 'a2aRestListTaskPushNotificationConfigs',
      summary: 'A2A HTTP+JSON binding: ListTaskPushNotificationConfigs (ours)',
      description: A2A_REST,
      tags,
      parameters: [taskId],
      responses: { '200': a2aJson('configs, nextPageToken.'), ...errors('401', '503') },
    },
  },
  '/a2a/rest/tasks/{task_id}/pushNotificationConfigs/{config_id}': {
    get: {
      operationId: 'a2aRestGetTaskPushNotificationConfig',
      summary: 'A2A HTTP+JSON binding: GetTaskPushNotificationConfig (ours)',
      description: A2A_REST,
      tags,
      parameters: [taskId, configId],
      responses: { '200': a2aJson('The configuration (never its credentials).'), ...errors('401', '503') },
    },
    delete: {
      operationId: 'a2aRestDeleteTaskPushNotificationConfig',
      summary: 'A2A HTTP+JSON binding: DeleteTaskPushNotificationConfig (ours)',
      description: A2A_REST,
      tags,
      parameters: [taskId, configId],
      responses: { '200': { description: 'Deleted (or there was none).' }, ...errors('401', '503') },
    },
  },
  '/a2a/rest/tasks/{task_id}': {
    get: {
      operationId: 'a2aRestGetTask',
      summary: 'A2A HTTP+JSON binding: GetTask (ours)',
      description: A2A_REST,
      tags,
      parameters: [taskId],
      responses: { '200': a2aJson('The task.'), ...errors('401', '503') },
    },
  },
  '/a2a/rest/tasks/{task_id}:cancel': {
    post: {
      operationId: 'a2aRestCancelTask',
      summary: 'A2A HTTP+JSON binding: CancelTask (ours)',
      description: A2A_REST,
      tags,
      parameters: [taskId],
      responses: { '200': a2aJson('The canceled task.'), ...errors('401', '503') },
    },
  },
  '/a2a/rest/tasks/{task_id}:subscribe': {
    get: {
      operationId: 'a2aRestSubscribeToTask',
      summary: 'A2A HTTP+JSON binding: SubscribeToTask (ours)',
      description: A2A_REST,
      tags,
      parameters: [taskId],
      responses: { '200': a2aStream, ...errors('401', '503') },
    },
  },
  '/mcp': {
    post: {
      operationId: 'mcpPost',
      summary: 'MCP: a JSON-RPC message of the session (ours)',
      description: MCP,
      tags,
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: {
        '200': {
          description:
            'The JSON-RPC answer, as JSON or as a stream of events (text/event-stream) with progress notifications first.',
          content: {
            'application/json': { schema: { type: 'object' } },
            'text/event-stream': { schema: { type: 'string' } },
          },
        },
        '202': { description: 'A notification or a response was taken.' },
        ...mcpErrors,
      },
    },
    get: {
      operationId: 'mcpStream',
      summary: "MCP: the session's stream of server notifications (ours)",
      description: MCP,
      tags,
      responses: {
        '200': {
          description: 'Server-sent events.',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        ...mcpErrors,
      },
    },
    delete: {
      operationId: 'mcpEnd',
      summary: 'MCP: ends the session (ours)',
      description: MCP,
      tags,
      responses: { '200': { description: 'Ended.' }, ...mcpErrors },
    },
  },
};
