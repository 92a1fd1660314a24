import type { Principal } from '@skillrun/core';
import type { Request } from 'express';
import { authRequired } from '../../auth/skill-access';
import type { AgentDeps } from '../agent-deps';

/** Who sends an MCP request: its credentials' principal (none when anonymous), and its address. */
export interface McpCaller {
  principal?: Principal;
  address: string;
  /** Whom it counts as: `caller:<id>`, or `address:<ip>` for an anonymous client. */
  key: string;
}

/** The caller of an MCP request, of either era; invalid credentials are 401 AUTH_REQUIRED. */
export async function mcpCallerOf(deps: Pick<AgentDeps, 'identities'>, req: Request): Promise<McpCaller> {
  const identity = await deps.identities.of(req.headers);
  if (identity.kind === 'invalid') throw authRequired({ type: 'api_key' }, 'The credentials are not valid');
  const principal = identity.kind === 'principal' ? identity.principal : undefined;
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  return principal
    ? { principal, address, key: `caller:${principal.callerId}` }
    : { address, key: `address:${address}` };
}

/**
 * The caller as the SDKs' transports hand it to each handler (`req.auth`, the `authInfo` of their
 * request context): the address is what anonymous callers are counted by and invocations limited by.
 */
export function authInfoOf(caller: McpCaller) {
  return {
    token: '',
    clientId: caller.key,
    scopes: caller.principal ? [...caller.principal.scopes] : [],
    extra: { address: caller.address },
  };
}
