import { TaskNotes } from '@skillrun/core/a2a';
import type { ApprovalsSlice } from '../approvals/build-approvals';
import type { ExecutionsSlice } from '../executions/build-executions';
import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import type { InvocationsSlice } from '../invocations/build-invocations';
import type { SkillsSlice } from '../skills/build-skills';
import type { TasksSlice } from '../tasks/build-tasks';
import { A2A_JSONRPC_PATH } from './a2a/a2a-agent-card';
import { AgentGateway } from './agent-gateway';
import { agentPaths } from './agent-paths';
import { agentRoutes } from './agent-routes';

/** The slices agents are served from: skills to list as tools, invoked, read and canceled, tasks to hand in, approvals to decide. */
export interface AgentSources {
  skills: SkillsSlice;
  invocations: InvocationsSlice;
  executions: ExecutionsSlice;
  tasks: TasksSlice;
  approvals: ApprovalsSlice;
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
  });
  return {
    routes: [{ path: '/', router: agentRoutes(agents) }],
    jsonRpc: [{ path: '/mcp' }, { path: A2A_JSONRPC_PATH, invalidRequestStatus: 200 }],
    paths: agentPaths,
    close: () => agents.close(),
  };
}
