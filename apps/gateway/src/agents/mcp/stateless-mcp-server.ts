import {
  CancelTaskRequestV2Schema,
  GetTaskRequestV2Schema,
  TASKS_EXTENSION_ID_V2,
  UpdateTaskRequestV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import {
  type McpRequestContext,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import type { Execution } from '@skillrun/core';
import type { RequestHeaders } from '../../http/request-headers';
import type { AgentDeps } from '../agent-deps';
import { BUDGET_META_KEY } from './budget-meta';
import { IDEMPOTENCY_META_KEY, withIdempotencyKey } from './idempotency-meta';
import type { McpApprovalElicitation } from './mcp-approval-elicitation';
import { acceptsTasks, type McpExtensionTasks } from './mcp-extension-tasks';
import type { ProgressReport } from './mcp-progress';
import { stillRunningResult } from './mcp-results';
import { MCP_INSTRUCTIONS, MCP_SERVER_INFO } from './mcp-server-identity';
import { mcpSkillSource } from './mcp-skill-source';
import type { McpTaskElicitation, PendingTask } from './mcp-task-elicitation';
import type { McpToolCalls } from './mcp-tool-calls';
import { listTools } from './mcp-tool-list';
import { withMcpErrors } from './with-mcp-errors';

/** tasks/update's params as its handler sees them: the task id (the SDK has taken the responses). */
const TASK_UPDATE_PARAMS = UpdateTaskRequestV2Schema.shape.params.pick({ taskId: true });

/** What every request's server shares: the calls, tasks and task elicitation services, and the gateway's shutdown. */
export interface StatelessParts {
  deps: AgentDeps;
  calls: McpToolCalls;
  tasks: McpExtensionTasks;
  elicitation: McpTaskElicitation;
  approvals: McpApprovalElicitation;
  /** Aborts when the gateway shuts down: a call stops following its execution, and cancels nothing. */
  closing: AbortSignal;
}

/** The request's header fields by lower-case name, as the services read credentials from them. */
function headersOf(request: Request | undefined): RequestHeaders {
  return request ? Object.fromEntries(request.headers) : {};
}

/** The client's address, which McpStateless hands over with the request. */
function addressOf(context: McpRequestContext): string {
  const address = context.authInfo?.extra?.address;
  return typeof address === 'string' ? address : 'unknown';
}

/**
 * The server of one request of revision 2026-07-28 (SDK 2.x, built per request: nothing is kept
 * between requests, so any gateway answers any of them). The same tools as a session's, listed
 * with `ttlMs` (MCP_LIST_CHANGED_POLL_MS: no gateway notices a change sooner) and `cacheScope:
 * "private"` (the list is the caller's); a call that outlasts MCP_CALL_WAIT_SECONDS is a task
 * handle for a client that declared the tasks extension, and says where its result will be to one
 * that did not; a `task` skill asks the person at a client that takes form elicitation to hand
 * its task in (McpTaskElicitation). The SDK answers server/discover, checks the envelope and
 * headers, and verifies a retry's requestState. An McpServer only because the SDK's skills
 * extension (SEP-2640, SkillsExtension, marked experimental) attaches to one: it serves each skill
 * the caller may see as its SKILL.md (mcpSkillSource), with the same ttlMs and cacheScope as
 * tools/list. Its tools API is not used: the tools are the registry's, listed per caller by
 * handlers on its low-level Server.
 */
export function statelessMcpServer(parts: StatelessParts, context: McpRequestContext): McpServer {
  const { deps, calls, tasks, elicitation, approvals, closing } = parts;
  const headers = headersOf(context.requestInfo);
  const mcp = new McpServer(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, extensions: { [TASKS_EXTENSION_ID_V2]: {} } },
    instructions: MCP_INSTRUCTIONS,
    requestState: { verify: elicitation.verify },
  });
  const { server } = mcp;
  /** A call still running at the bound: a task handle for a client of the extension, where its result will be to another. */
  const stillRunning = (running: Execution) =>
    acceptsTasks(server.getClientCapabilities())
      ? // The SDK knows no task results: its check of a tools/call result wants `content` (a client
        // of the extension reads the handle by its resultType).
        { ...tasks.handle(running), content: [] }
      : stillRunningResult(running, deps.baseUrl, deps.callWaitSeconds);

  const answered = withMcpErrors<unknown>(deps, {
    error: ({ code, message, data }) => new ProtocolError(code, message, data),
    headersOf: () => headers,
  });

  server.setRequestHandler(
    'tools/list',
    answered('tools/list', async (request) => {
      const page = await listTools(deps, headers, request.params?.cursor, { tasks: false });
      return {
        ...page,
        tools: page.tools.map((tool) => ({ ...tool })),
        ttlMs: deps.listChangedPollMs,
        cacheScope: 'private' as const,
      };
    }),
  );

  server.setRequestHandler(
    'tools/call',
    answered('tools/call', async (request, ctx) => {
      const { name, arguments: args = {}, _meta } = request.params;
      const token = _meta?.progressToken;
      const call = {
        name,
        arguments: args,
        headers: withIdempotencyKey(headers, _meta?.[IDEMPOTENCY_META_KEY]),
        ...(_meta?.[BUDGET_META_KEY] === undefined ? {} : { budget: _meta[BUDGET_META_KEY] }),
        address: addressOf(context),
        // Closing the request's stream is its cancellation (revision 2026-07-28).
        signal: ctx.mcpReq.signal,
        stop: closing,
        ...(token === undefined
          ? {}
          : {
              progress: (report: ProgressReport) =>
                ctx.mcpReq.notify({
                  method: 'notifications/progress',
                  params: { progressToken: token, ...report },
                }),
            }),
      };
      // A retry of a call answered input_required: its task, handed in with the form's answer.
      // Or of one whose approval the form asked for (McpApprovalElicitation).
      const pending = ctx.mcpReq.requestState<PendingTask>();
      if (pending !== undefined) {
        const answered = pending.approval
          ? await approvals.answer(call, pending, ctx)
          : await elicitation.answer(call, pending, ctx);
        return 'result' in answered ? answered.result : stillRunning(answered.running);
      }
      const started = await calls.start(call);
      if ('refused' in started) return started.refused;
      const client = server.getClientCapabilities();
      const form =
        (await approvals.offer(call, started.execution, client, ctx)) ??
        (await elicitation.offer(call, started, client, ctx));
      if (form) return form;
      const followed = await calls.follow(call, started);
      return 'result' in followed ? followed.result : stillRunning(followed.running);
    }),
  );

  server.setRequestHandler(
    'tasks/get',
    { params: GetTaskRequestV2Schema.shape.params },
    answered('tasks/get', (params) => tasks.get(params.taskId, headers, server.getClientCapabilities())),
  );
  // The SDK lifts `inputResponses` out of every request's params (they are multi-round-trip's):
  // the handler finds them in its context.
  server.setRequestHandler(
    'tasks/update',
    { params: TASK_UPDATE_PARAMS },
    answered('tasks/update', async (params, ctx) => {
      if (ctx.mcpReq.inputResponses === undefined) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'tasks/update takes inputResponses');
      }
      return tasks.update(params.taskId, headers, server.getClientCapabilities());
    }),
  );
  server.setRequestHandler(
    'tasks/cancel',
    { params: CancelTaskRequestV2Schema.shape.params },
    answered('tasks/cancel', (params) =>
      tasks.cancel(params.taskId, headers, server.getClientCapabilities()),
    ),
  );
  const skills = mcpSkillSource(deps, headers);
  new SkillsExtension({
    source: {
      list: answered('skills/list', skills.list),
      get: answered('skills/get', skills.get),
      read: answered('resources/read', skills.read),
    },
    cacheHint: { ttlMs: deps.listChangedPollMs, cacheScope: 'private' },
  }).attach(mcp);
  return mcp;
}
