import type { GatewayShared } from '../gateway-shared';
import { lazyRouter } from '../http/lazy-router';
import type { Mount, Slice } from '../http/slice';
import { measuredRouter } from '../metrics/measured-router';
import { A2A_JSONRPC_PATH } from './a2a/a2a-agent-card';
import type { AgentSources } from './agent-deps';
import { agentPaths } from './agent-paths';
import type { AgentProtocols } from './agent-protocols';
import { toolRoutes } from './tool-routes';

/** The paths MCP and A2A answer at (/mcp, /a2a and below, the Agent Card): the first loads them. */
const PROTOCOL_PATHS = /^\/(?:mcp|a2a)(?:\/|$)|^\/\.well-known\/agent-card\.json$/;

/**
 * Skills for agents, mounted at the root (their paths are whole): tool definitions (GET /tools,
 * GET /skills/{id}/tools), and MCP and A2A. The protocols and their SDKs (some 25 MB of a gateway's
 * memory) are loaded on the first request to one of their paths, as the HTML pages' libraries are;
 * their sessions and the tool list's watch are closed with the slice.
 */
export function buildAgents(shared: GatewayShared, sources: AgentSources): Slice {
  const tools = measuredRouter();
  toolRoutes(tools, () => ({ discovery: sources.skills.discovery, identities: shared.identities }));
  let started: AgentProtocols | undefined;
  const protocols = lazyRouter(async () => {
    const { agentProtocols } = await import('./agent-protocols');
    started = agentProtocols(shared, sources);
    return started.router;
  });
  const routes: Mount[] = [
    { path: '/', router: tools },
    {
      path: '/',
      router: (req, res, next) => (PROTOCOL_PATHS.test(req.path) ? protocols(req, res, next) : next()),
    },
  ];
  return {
    routes,
    jsonRpc: [{ path: '/mcp' }, { path: A2A_JSONRPC_PATH, invalidRequestStatus: 200 }],
    paths: agentPaths,
    close: () => started?.agents.close(),
  };
}
