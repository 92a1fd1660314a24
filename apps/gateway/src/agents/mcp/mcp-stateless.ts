import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  InMemoryServerEventBus,
  type McpHandlerRequestOptions,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import { StreamQuota } from '../../executions/stream-quota';
import type { AgentDeps } from '../agent-deps';
import { McpApprovalElicitation } from './mcp-approval-elicitation';
import { authInfoOf, mcpCallerOf } from './mcp-caller';
import { McpExtensionTasks } from './mcp-extension-tasks';
import { McpTaskElicitation } from './mcp-task-elicitation';
import { McpToolCalls } from './mcp-tool-calls';
import { withSessionVersions } from './session-versions';
import { statelessMcpServer } from './stateless-mcp-server';

/** Whether an answer may name the versions served: a discovery's, or a refusal's (an unsupported version is 400). */
function namesVersions(response: globalThis.Response, body: unknown): boolean {
  const discovery =
    typeof body === 'object' && body !== null && 'method' in body && body.method === 'server/discover';
  return discovery || response.status === 400;
}

/**
 * MCP revision 2026-07-28 at /mcp, stateless, with the SDK's own handler (`createMcpHandler`):
 * each request carries its protocol version and client capabilities in `_meta` and gets a server
 * of its own (statelessMcpServer), so nothing is kept between requests and any gateway answers any
 * of them. The SDK answers server/discover, checks the envelope and the MCP-Protocol-Version,
 * Mcp-Method and Mcp-Name headers (`-32020` HeaderMismatch, `-32022` UnsupportedProtocolVersion,
 * `-32602` for a missing envelope), verifies a multi-round-trip retry's requestState
 * (McpTaskElicitation), stamps `resultType` and the server's identity, and streams a
 * request's notifications (progress) on its own response. `subscriptions/listen` (which replaces
 * the GET stream) is the SDK's too: it acknowledges what the client asked for that we send
 * (`toolsListChanged`: a tools-only server has no prompts or resources) and streams
 * notifications/tools/list_changed when the gateway's ToolListWatch sees the skills change
 * (notifyToolsChanged). Listen streams are bounded as sessions are: MCP_MAX_SESSIONS on the
 * gateway, MCP_MAX_SESSIONS_PER_CALLER (or _PER_ADDRESS) per caller, past which 429. Requests of
 * revision 2025-11-25 are the sessions' (McpEndpoint routes them): this handler refuses them
 * (`legacy: "reject"`).
 */
export class McpStateless {
  /** Aborts what calls follow when the gateway shuts down, before the SDK aborts their requests. */
  private readonly closing = new AbortController();
  private readonly handler: McpHttpHandler;
  private readonly serve: ReturnType<typeof toNodeHandler>;
  /** What the listen streams are told: the SDK's in-process bus (each gateway tells its own streams). */
  private readonly bus: InMemoryServerEventBus;
  /** The listen streams open, per caller and per anonymous address. */
  private readonly callerListens: StreamQuota;
  private readonly addressListens: StreamQuota;

  constructor(private readonly deps: AgentDeps) {
    const elicitation = new McpTaskElicitation(deps);
    const parts = {
      deps,
      calls: new McpToolCalls(deps),
      tasks: new McpExtensionTasks(deps),
      elicitation,
      approvals: new McpApprovalElicitation(deps, elicitation.mint),
      closing: this.closing.signal,
    };
    this.bus = new InMemoryServerEventBus((error) => deps.logger.warn({ err: error }, 'mcp listen stream'));
    this.callerListens = new StreamQuota(deps.maxSessionsPerCaller);
    this.addressListens = new StreamQuota(deps.maxSessionsPerAddress);
    this.handler = createMcpHandler((context) => statelessMcpServer(parts, context), {
      legacy: 'reject',
      bus: this.bus,
      maxSubscriptions: deps.maxSessions,
      // Refused requests (a bad header, an unknown version) are the client's; the answer says why.
      onerror: (error) => deps.logger.debug({ err: error }, 'mcp request refused'),
    });
    this.serve = toNodeHandler({ fetch: (request, options) => this.answer(request, options) });
  }

  /** One request, authorized by its own credentials (invalid ones are 401 before the protocol). */
  async handle(req: Request, res: Response): Promise<void> {
    const caller = await mcpCallerOf(this.deps, req);
    (req as Request & { auth?: unknown }).auth = authInfoOf(caller);
    if (req.body?.method === 'subscriptions/listen') {
      const quota = caller.principal ? this.callerListens : this.addressListens;
      const release = quota.take(caller.key, (seconds) => res.setHeader('Retry-After', seconds));
      res.once('close', release);
    }
    await this.serve(req, res, req.body);
  }

  /** Whether a listen stream is open on this gateway: the tool list is watched while one is. */
  get listening(): boolean {
    return this.bus.listenerCount > 0;
  }

  /**
   * Tells every listen stream that asked for it that the tool list changed, and with it the skills
   * extension's SKILL.md resources (each skill is both): `resources/list_changed`, as the SDK's
   * skills extension has a changed listing told.
   */
  notifyToolsChanged(): void {
    this.handler.notify.toolsChanged();
    this.handler.notify.resourcesChanged();
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.handler.close();
  }

  private async answer(
    request: globalThis.Request,
    options?: McpHandlerRequestOptions,
  ): Promise<globalThis.Response> {
    const response = await this.handler.fetch(request, options);
    return namesVersions(response, options?.parsedBody) ? withSessionVersions(response) : response;
  }
}
