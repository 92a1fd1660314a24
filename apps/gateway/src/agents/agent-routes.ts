import type { Router } from 'express';
import { measuredRouter } from '../metrics/measured-router';
import { a2aRoutes } from './a2a/a2a-routes';
import type { AgentGateway } from './agent-gateway';
import { mcpOriginCheck } from './mcp/mcp-origin-check';
import { toolRoutes } from './tool-routes';

/**
 * What agents use, mounted at the root: tool definitions (GET /tools, GET /skills/{id}/tools),
 * MCP over Streamable HTTP (POST, GET and DELETE /mcp, from allowed origins only) and A2A (the
 * Agent Card, JSON-RPC at POST /a2a).
 */
export function agentRoutes(agents: AgentGateway): Router {
  const router = measuredRouter();
  toolRoutes(router, () => agents.deps);
  const originCheck = mcpOriginCheck({
    baseUrl: agents.deps.baseUrl,
    allowedOrigins: agents.deps.allowedOrigins,
  });
  router.post('/mcp', originCheck, (req, res) => agents.mcp.handle(req, res));
  router.get('/mcp', originCheck, (req, res) => agents.mcp.handle(req, res));
  router.delete('/mcp', originCheck, (req, res) => agents.mcp.handle(req, res));
  a2aRoutes(router, () => agents);
  return router;
}
