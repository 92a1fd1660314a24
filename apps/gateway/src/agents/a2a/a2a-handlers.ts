import { jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import type { Request, RequestHandler } from 'express';
import { authRequired } from '../../auth/skill-access';
import { assertJsonRpcRequest } from '../../http/json-rpc-request';
import type { AgentGateway } from '../agent-gateway';
import { applyImpliedVersion } from './a2a-version';
import { CLIENT_ADDRESS_HEADER } from './skill-a2a-handler';

/** ListTasks' method names (1.0, and 0.3's): it lists the caller's own tasks. */
const LIST_TASKS = new Set(['ListTasks', 'tasks/list']);
const LIST_TASKS_REFUSED =
  "Listing tasks needs credentials: it shows the caller its own (a task's id alone reads it with GetTask)";

/** Whether a request of the HTTP+JSON binding lists tasks: GET tasks, with or without a tenant. */
const listsTasks = (req: Request) => req.method === 'GET' && /^\/(?:[^/]+\/)?tasks\/?$/.test(req.path);

/** What serves A2A's three routes (agentRoutes registers them). */
export interface A2aHandlers {
  agentCard: RequestHandler;
  rpc: RequestHandler;
  rest: RequestHandler;
}

/**
 * A2A: the Agent Card at /.well-known/agent-card.json, and JSON-RPC at
 * POST /a2a (A2A 1.0, and the v0.3 method names, which the SDK's compat layer serves when the
 * request's A2A-Version is 0.3, or absent and the method a 0.3 name). Credentials that are
 * presented must be valid (401 otherwise, a JSON-RPC error at /a2a); what each skill asks for is
 * checked as for HTTP. The HTTP+JSON binding
 * (1.0) is the SDK's router under /a2a/rest (POST message:send, message:stream, GET tasks/{id},
 * POST tasks/{id}:cancel, GET or POST tasks/{id}:subscribe, ...).
 */
export function a2aHandlers(gateway: AgentGateway): A2aHandlers {
  const rpc = jsonRpcHandler({
    requestHandler: gateway.a2a,
    userBuilder: UserBuilder.noAuthentication,
    legacyCompat: { enabled: true },
  });
  const rest = restHandler({ requestHandler: gateway.a2a, userBuilder: UserBuilder.noAuthentication });

  /**
   * Presented credentials must be valid, whatever the skill asks for; a list of tasks, which is the
   * caller's own, needs some (401, as GET /executions: the SDK's handler could only answer invalid
   * params). The client's address (what anonymous callers are counted by) goes to the handler in a
   * header set here, whatever the client sent.
   */
  const checkCredentials = async (req: Request, listing: boolean) => {
    req.headers[CLIENT_ADDRESS_HEADER] = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const identity = await gateway.deps.identities.of(req.headers);
    if (identity.kind === 'invalid') throw authRequired({ type: 'api_key' }, 'The credentials are not valid');
    if (listing && identity.kind === 'anonymous') throw authRequired({ type: 'api_key' }, LIST_TASKS_REFUSED);
  };

  return {
    agentCard: async (_req, res) => {
      const card = await gateway.a2a.agentCardJson();
      res.setHeader('Cache-Control', 'no-cache');
      res.json(card);
    },
    rpc: async (req, res, next) => {
      await checkCredentials(req, LIST_TASKS.has(req.body?.method));
      // The SDK's 1.0 handler answers a malformed request -32602 where JSON-RPC says -32600.
      assertJsonRpcRequest(req.body);
      applyImpliedVersion(req);
      // The SDK's router serves its own root.
      req.url = '/';
      rpc(req, res, next);
    },
    rest: async (req, res, next) => {
      await checkCredentials(req, listsTasks(req));
      rest(req, res, next);
    },
  };
}
