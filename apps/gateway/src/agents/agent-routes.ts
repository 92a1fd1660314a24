import type { RequestHandler, Router } from 'express';
import { measuredRouter } from '../metrics/measured-router';
import { A2A_JSONRPC_PATH, A2A_REST_PATH } from './a2a/a2a-agent-card';
import type { AgentProtocols } from './agent-protocols';
import { mcpOriginCheck } from './mcp/mcp-origin-check';
import { type ToolRoutesDeps, toolRoutes } from './tool-routes';

export interface AgentRoutesDeps {
  tools: ToolRoutesDeps;
  baseUrl: string;
  allowedOrigins: readonly string[];
  /** The protocols' handlers, loaded on the first request that needs them (see buildAgents). */
  protocols: () => Promise<AgentProtocols>;
}

/**
 * What agents use, mounted at the root: tool definitions (GET /tools, GET /skills/{id}/tools),
 * MCP over Streamable HTTP (POST, GET and DELETE /mcp, from allowed origins only) and A2A (the
 * Agent Card, JSON-RPC at POST /a2a, its HTTP+JSON binding under /a2a/rest). The routes are
 * registered here, at start; what serves MCP and A2A is loaded with their SDKs on the first request.
 */
export function agentRoutes(deps: AgentRoutesDeps): Router {
  const router = measuredRouter();
  toolRoutes(router, () => deps.tools);
  const originCheck = mcpOriginCheck({ baseUrl: deps.baseUrl, allowedOrigins: deps.allowedOrigins });
  const mcp: RequestHandler = async (req, res) => (await deps.protocols()).mcp(req, res);
  router.post('/mcp', originCheck, mcp);
  router.get('/mcp', originCheck, mcp);
  router.delete('/mcp', originCheck, mcp);
  router.get('/.well-known/agent-card.json', async (req, res, next) =>
    (await deps.protocols()).a2a.agentCard(req, res, next),
  );
  router.post(A2A_JSONRPC_PATH, async (req, res, next) => (await deps.protocols()).a2a.rpc(req, res, next));
  router.use(A2A_REST_PATH, async function a2aRest(req, res, next) {
    await (await deps.protocols()).a2a.rest(req, res, next);
  });
  return router;
}
