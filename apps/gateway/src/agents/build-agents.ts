import type { ExecutionsSlice } from '../executions/build-executions';
import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import type { InvocationsSlice } from '../invocations/build-invocations';
import type { SkillsSlice } from '../skills/build-skills';
import { AgentGateway } from './agent-gateway';
import { agentPaths } from './agent-paths';
import { agentRoutes } from './agent-routes';

/** The slices agents are served from: skills to list as tools, invoked, read and canceled. */
export interface AgentSources {
  skills: SkillsSlice;
  invocations: InvocationsSlice;
  executions: ExecutionsSlice;
}

/**
 * Skills for agents: tool definitions, MCP and A2A, mounted at the root (their paths are whole);
 * MCP sessions, A2A and the tool list's watch are closed with the slice.
 */
export function buildAgents(shared: GatewayShared, sources: AgentSources): Slice {
  const { config } = shared;
  const agents = new AgentGateway({
    discovery: sources.skills.discovery,
    identities: shared.identities,
    invocations: sources.invocations.service,
    executions: sources.executions.reader,
    canceler: sources.executions.canceler,
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
    providerName: config.PROVIDER_NAME,
    retentionSeconds: config.EXECUTION_TTL_SECONDS,
  });
  return {
    routes: [{ path: '/', router: agentRoutes(agents) }],
    paths: agentPaths,
    close: () => agents.close(),
  };
}
