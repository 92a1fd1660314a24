import { TaskNotes } from '@skillrun/core/a2a';
import type { Request, Response } from 'express';
import type { GatewayShared } from '../gateway-shared';
import { type A2aHandlers, a2aHandlers } from './a2a/a2a-handlers';
import type { AgentDeps, AgentSources } from './agent-deps';
import { AgentGateway } from './agent-gateway';

/** The agent protocols, started: what serves their routes, and the gateway behind it (closed at shutdown). */
export interface AgentProtocols {
  agents: AgentGateway;
  mcp(req: Request, res: Response): Promise<void>;
  a2a: A2aHandlers;
}

/**
 * MCP (both eras) and A2A, started over the gateway's services. This module is what loads the
 * protocols' SDKs: the gateway imports it on the first request to one of their routes (see
 * buildAgents), which agentRoutes registers at start.
 */
export function agentProtocols(shared: GatewayShared, sources: AgentSources): AgentProtocols {
  const agents = new AgentGateway(agentDepsOf(shared, sources));
  return { agents, mcp: (req, res) => agents.mcp.handle(req, res), a2a: a2aHandlers(agents) };
}

/** What the protocols are served from: the gateway's services, and its settings for agents. */
function agentDepsOf(shared: GatewayShared, sources: AgentSources): AgentDeps {
  const { config } = shared;
  return {
    discovery: sources.skills.discovery,
    identities: shared.identities,
    invocations: sources.invocations.service,
    executions: sources.executions.reader,
    canceler: sources.executions.canceler,
    tasks: sources.tasks.desk,
    taskSecret: sources.tasks.secret,
    approvals: sources.approvals.desk,
    history: sources.executions.history,
    notes: new TaskNotes(shared.redis, shared.keys, config.EXECUTION_TTL_SECONDS),
    webhooks: shared.webhooks,
    webhookUrls: shared.webhookUrls,
    store: shared.store,
    registry: shared.registry,
    baseUrl: config.PUBLIC_BASE_URL,
    logger: shared.logger,
    callWaitSeconds: config.MCP_CALL_WAIT_SECONDS,
    toolsPageSize: config.MCP_TOOLS_PAGE_SIZE,
    listChangedPollMs: config.MCP_LIST_CHANGED_POLL_MS,
    maxSessions: config.MCP_MAX_SESSIONS,
    maxSessionsPerCaller: config.MCP_MAX_SESSIONS_PER_CALLER,
    maxSessionsPerAddress: config.MCP_MAX_SESSIONS_PER_ADDRESS,
    allowedOrigins: config.mcpAllowedOrigins,
    a2aSendWaitSeconds: config.A2A_SEND_WAIT_SECONDS,
    ...(config.A2A_DEFAULT_SKILL === undefined ? {} : { a2aDefaultSkill: config.A2A_DEFAULT_SKILL }),
    ...(config.LLM_BASE_URL === undefined || config.LLM_MODEL === undefined
      ? {}
      : {
          a2aRouterLlm: {
            baseUrl: config.LLM_BASE_URL,
            model: config.LLM_MODEL,
            ...(config.LLM_API_KEY === undefined ? {} : { apiKey: config.LLM_API_KEY }),
          },
        }),
    providerName: config.PROVIDER_NAME,
    retentionSeconds: config.EXECUTION_TTL_SECONDS,
    handInSeconds: config.TASK_LINK_TTL_SECONDS,
  };
}
