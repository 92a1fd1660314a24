import { TaskNotes } from '@skillrun/core/a2a';
import type { Router } from 'express';
import type { GatewayShared } from '../gateway-shared';
import { measuredRouter } from '../metrics/measured-router';
import { a2aRoutes } from './a2a/a2a-routes';
import type { AgentDeps, AgentSources } from './agent-deps';
import { AgentGateway } from './agent-gateway';
import { mcpOriginCheck } from './mcp/mcp-origin-check';

/** The agent protocols, started: their routes, and the gateway that serves them (closed at shutdown). */
export interface AgentProtocols {
  router: Router;
  agents: AgentGateway;
}

/**
 * MCP over Streamable HTTP (POST, GET and DELETE /mcp, from allowed origins only) and A2A (the
 * Agent Card, JSON-RPC at POST /a2a, the HTTP+JSON binding under /a2a/rest), on a router mounted
 * at the root. This module is what loads the protocols' SDKs: the gateway imports it on the first
 * request to one of their paths (see buildAgents).
 */
export function agentProtocols(shared: GatewayShared, sources: AgentSources): AgentProtocols {
  const deps = agentDepsOf(shared, sources);
  const agents = new AgentGateway(deps);
  const router = measuredRouter();
  const originCheck = mcpOriginCheck({ baseUrl: deps.baseUrl, allowedOrigins: deps.allowedOrigins });
  router.post('/mcp', originCheck, (req, res) => agents.mcp.handle(req, res));
  router.get('/mcp', originCheck, (req, res) => agents.mcp.handle(req, res));
  router.delete('/mcp', originCheck, (req, res) => agents.mcp.handle(req, res));
  a2aRoutes(router, () => agents);
  return { router, agents };
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
