import { jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import type { Request, RequestHandler, Router } from 'express';
import { authRequired } from '../../auth/skill-access';
import type { AgentGateway } from '../agent-gateway';
import { A2A_JSONRPC_PATH, A2A_REST_PATH } from './a2a-agent-card';
import { CLIENT_ADDRESS_HEADER } from './skill-a2a-handler';

/**
 * A2A on the agents' router: the Agent Card at /.well-known/agent-card.json, and JSON-RPC at
 * POST /a2a (A2A 1.0, and the v0.3 method names, which the SDK's compat layer serves when the
 * request's A2A-Version is 0.3 or absent). Credentials that are presented must be valid (401 in
 * our envelope otherwise); what each skill asks for is checked as for HTTP. The HTTP+JSON binding
 * (1.0) is the SDK's router under /a2a/rest (POST message:send, message:stream, GET tasks/{id},
 * POST tasks/{id}:cancel, GET or POST tasks/{id}:subscribe, ...).
 */
export function a2aRoutes(router: Router, agents: () => AgentGateway): void {
  let rpc: RequestHandler | undefined;
  let rest: RequestHandler | undefined;

  /**
   * Presented credentials must be valid, whatever the skill asks for. The client's address (what
   * anonymous callers are counted by) goes to the handler in a header set here, whatever the client sent.
   */
  const checkCredentials = async (req: Request) => {
    req.headers[CLIENT_ADDRESS_HEADER] = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const gateway = agents();
    const identity = await gateway.deps.identities.of(req.headers);
    if (identity.kind === 'invalid') throw authRequired({ type: 'api_key' }, 'The credentials are not valid');
    return gateway;
  };

  router.get('/.well-known/agent-card.json', async (_req, res) => {
    const card = await agents().a2a.agentCardJson();
    res.setHeader('Cache-Control', 'no-cache');
    res.json(card);
  });

  router.post(A2A_JSONRPC_PATH, async (req: Request, res, next) => {
    const gateway = await checkCredentials(req);
    rpc ??= jsonRpcHandler({
      requestHandler: gateway.a2a,
      userBuilder: UserBuilder.noAuthentication,
      legacyCompat: { enabled: true },
    });
    // The SDK's router serves its own root.
    req.url = '/';
    rpc(req, res, next);
  });

  router.use(A2A_REST_PATH, async function a2aRest(req: Request, res, next) {
    const gateway = await checkCredentials(req);
    rest ??= restHandler({ requestHandler: gateway.a2a, userBuilder: UserBuilder.noAuthentication });
    rest(req, res, next);
  });
}
