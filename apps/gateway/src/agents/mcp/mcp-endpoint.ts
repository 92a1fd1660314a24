import { toWebRequest } from '@modelcontextprotocol/node';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import type { AgentDeps } from '../agent-deps';
import { McpSessions } from './mcp-sessions';
import { McpStateless } from './mcp-stateless';

/**
 * Whether a request is of revision 2026-07-28: a POST whose body claims the per-request `_meta`
 * envelope (or names a modern revision in MCP-Protocol-Version), by the SDK's own classification,
 * the one its handler routes by. A POST the body parser did not take (not JSON) is the sessions'
 * to refuse, as the SDK would route it.
 */
async function isModern(req: Request): Promise<boolean> {
  if (req.method !== 'POST' || req.body === undefined) return false;
  return !(await isLegacyRequest(await toWebRequest(req, req.body), req.body));
}

/**
 * /mcp, dual-era as the revision's compatibility matrix describes: a request with the modern
 * `_meta` envelope is served statelessly (revision 2026-07-28, SDK 2.x), an `initialize` opens a
 * session of revision 2025-11-25 (SDK 1.x), whose requests carry its Mcp-Session-Id. Two SDKs:
 * 2.x has no runtime for the 2025-11-25 tasks our sessions serve (task-augmented tools/call,
 * tasks/result).
 */
export class McpEndpoint {
  readonly sessions: McpSessions;
  readonly stateless: McpStateless;

  constructor(deps: AgentDeps) {
    this.sessions = new McpSessions(deps);
    this.stateless = new McpStateless(deps);
  }

  async handle(req: Request, res: Response): Promise<void> {
    if (await isModern(req)) await this.stateless.handle(req, res);
    else await this.sessions.handle(req, res);
  }

  /** Whether anyone here may be told the tool list changed: a session, or a listen stream. */
  get listening(): boolean {
    return this.sessions.size > 0 || this.stateless.listening;
  }

  /** notifications/tools/list_changed to every session and every listen stream that asked for it. */
  notifyToolsChanged(): void {
    this.sessions.notifyToolsChanged();
    this.stateless.notifyToolsChanged();
  }

  async close(): Promise<void> {
    await Promise.all([this.sessions.close(), this.stateless.close()]);
  }
}
