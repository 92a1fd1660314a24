import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { SkillError } from '@skillrun/core';
import type { Request, Response } from 'express';
import type { AgentDeps } from '../agent-deps';
import { authInfoOf, mcpCallerOf } from './mcp-caller';
import { admitSession, type SessionHolder, type SessionUse } from './mcp-session-admission';
import { skillMcpServer } from './skill-mcp-server';

interface Session extends SessionUse {
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
}

/** A session no request has used for this long is closed (its client re-initializes on 404). */
const IDLE_MS = 30 * 60 * 1000;

/**
 * MCP revision 2025-11-25 (and earlier) over Streamable HTTP at /mcp, for the clients that open
 * with initialize (revision 2026-07-28 is stateless: McpStateless), with sessions (Mcp-Session-Id)
 * kept in this gateway's memory. Sessions because that revision's server-to-client messages need
 * them: notifications/cancelled must reach the request it cancels, and
 * notifications/tools/list_changed goes down the session's GET stream. Behind several gateways, route /mcp by the Mcp-Session-Id header (sticky); a request
 * that reaches another gateway is 404, and an MCP client then initializes a new session, as the
 * specification asks. A session is bound to the caller that initialized it (by its credentials; an
 * anonymous one by its address), which also holds it against its cap (mcp-session-admission.ts);
 * each request is still authorized by its own credentials. The map is kept in order of last use,
 * least recent first.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly sweep: NodeJS.Timeout;
  /** Aborts what requests follow (tools/call, tasks/result) when the gateway shuts down. */
  readonly closing = new AbortController();

  constructor(private readonly deps: AgentDeps) {
    this.sweep = setInterval(() => this.dropIdle(), 60_000);
    this.sweep.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(req: Request, res: Response): Promise<void> {
    const caller = await mcpCallerOf(this.deps, req);
    const holder: SessionHolder = {
      key: caller.key,
      cap: caller.principal ? this.deps.maxSessionsPerCaller : this.deps.maxSessionsPerAddress,
    };
    (req as Request & { auth?: unknown }).auth = authInfoOf(caller);
    const sessionId = req.get('mcp-session-id');
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId);
      if (!session || session.holder !== holder.key) {
        throw new SkillError(
          'NOT_FOUND',
          'No such MCP session (it ended, or lives on another gateway): initialize a new one',
        );
      }
      await this.serve(sessionId, session, req, res);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      throw new SkillError(
        'INVALID_INPUT',
        'Without an Mcp-Session-Id header, only initialize (revision 2025-11-25) is taken, or a request of revision 2026-07-28 (its protocol version, client capabilities and client info in _meta)',
      );
    }
    const admission = admitSession(this.sessions, holder, this.deps.maxSessions);
    if (!admission.admit) throw admission.refusal;
    if (admission.evict !== undefined) this.drop(admission.evict);
    const id = randomUUID();
    const session = this.open(id, holder.key);
    try {
      await session.server.connect(session.transport);
      await this.serve(id, session, req, res);
    } finally {
      // The transport refused the initialize (a wrong Accept, a batch): no session began.
      if (session.transport.sessionId === undefined) this.drop(id);
    }
  }

  /** Tells every session's client that the tools changed. */
  notifyToolsChanged(): void {
    for (const { server } of this.sessions.values()) server.sendToolListChanged().catch(() => {});
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    this.closing.abort();
    await Promise.all([...this.sessions.values()].map(({ server }) => server.close().catch(() => {})));
    this.sessions.clear();
  }

  /** A request of the session: it becomes the most recently used, and busy while a POST of it is answered. */
  private async serve(id: string, session: Session, req: Request, res: Response): Promise<void> {
    session.lastSeen = Date.now();
    this.sessions.delete(id);
    this.sessions.set(id, session);
    if (req.method === 'POST') {
      session.answering++;
      res.once('close', () => {
        session.answering--;
      });
    }
    await session.transport.handleRequest(req, res, req.body);
  }

  /**
   * A session, counted from now (before its initialize is answered, so that initializes at the
   * same moment see each other).
   */
  private open(id: string, holder: string): Session {
    // Aborted as the session ends, before the SDK aborts its requests' handlers: a call then stops
    // following its execution without taking that abort for the client's cancellation.
    const ending = new AbortController();
    const server = skillMcpServer(this.deps, AbortSignal.any([this.closing.signal, ending.signal]));
    const session: Session = {
      server,
      holder,
      answering: 0,
      lastSeen: Date.now(),
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        onsessionclosed: () => {
          this.sessions.delete(id);
        },
      }),
    };
    // Set before connect(), which calls it first and then aborts the requests in flight.
    session.transport.onclose = () => {
      ending.abort();
      this.sessions.delete(id);
    };
    this.sessions.set(id, session);
    return session;
  }

  /** Closes a session: its GET stream ends, and its client's next request is 404. */
  private drop(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    session.server.close().catch(() => {});
  }

  /** Closes the sessions unused for IDLE_MS that are not answering a request. */
  private dropIdle(): void {
    const before = Date.now() - IDLE_MS;
    for (const [id, session] of this.sessions) {
      // In order of last use: the rest are more recent.
      if (session.lastSeen >= before) break;
      if (session.answering === 0) this.drop(id);
    }
  }
}
