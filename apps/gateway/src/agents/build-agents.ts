import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import { A2A_JSONRPC_PATH } from './a2a/a2a-agent-card';
import type { AgentSources } from './agent-deps';
import { agentPaths } from './agent-paths';
import type { AgentProtocols } from './agent-protocols';
import { agentRoutes } from './agent-routes';

/**
 * Skills for agents, mounted at the root (their paths are whole): tool definitions, MCP and A2A.
 * What serves MCP and A2A, and their SDKs (some 25 MB of a gateway's memory on Node 24), is
 * imported on the first request to one of their routes: a gateway no agent talks to never loads
 * them. Their sessions and the tool list's watch are closed with the slice.
 */
export function buildAgents(shared: GatewayShared, sources: AgentSources): Slice {
  let started: AgentProtocols | undefined;
  let loading: Promise<AgentProtocols> | undefined;
  const protocols = (): Promise<AgentProtocols> => {
    loading ??= import('./agent-protocols')
      .then(({ agentProtocols }) => {
        started = agentProtocols(shared, sources);
        return started;
      })
      .catch((error: unknown) => {
        // A failed load or start is tried again on the next request, not kept.
        loading = undefined;
        throw error;
      });
    return loading;
  };
  const router = agentRoutes({
    tools: { discovery: sources.skills.discovery, identities: shared.identities },
    baseUrl: shared.config.PUBLIC_BASE_URL,
    allowedOrigins: shared.config.mcpAllowedOrigins,
    protocols,
  });
  return {
    routes: [{ path: '/', router }],
    jsonRpc: [{ path: '/mcp' }, { path: A2A_JSONRPC_PATH, invalidRequestStatus: 200 }],
    paths: agentPaths,
    close: () => started?.agents.close(),
  };
}
