import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { SkillError } from '@skillrun/core';
import type { Request, Response } from 'express';
import { authRequired } from '../../auth/skill-access';
import type { AgentDeps } from '../agent-deps';
import { skillMcpServer } from './skill-mcp-server';

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** The caller that initialized it: every later request must be the same caller. */
  owner: string;
  lastSeen: number;
}

/** A session no request has used for this long is closed (its client re-initializes on 404). */
const IDLE_MS = 30 * 60 * 1000;

/**
 * MCP over Streamable HTTP at /mcp, with sessions (Mcp-Session-Id), kept in this gateway's memory.
 * Sessions because the protocol's server-to-client messages need them: notifications/cancelled
 * must reach the request it cancels, and notifications/tools/list_changed goes down the session's
 * GET stream. Behind several gateways, route /mcp by the Mcp-Session-Id header (sticky); a request
 * that reaches another gateway is 404, and an MCP client then initializes a new session, as the
 * specification asks. A session is bound to the caller that initialized it (by its credentials);
 * each request is still authorized by its own.
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
    const identity = await this.deps.identities.of(req.headers);
    if (identity.kind === 'invalid') throw authRequired({ type: 'api_key' }, 'The credentials are not valid');
    const principal = identity.kind === 'principal' ? identity.principal : undefined;
    const owner = principal ? `caller:${principal.callerId}` : 'anonymous';
    // The transport hands `auth` to every handler: the client's address is what anonymous callers are counted by.
    (req as Request & { auth?: unknown }).auth = {
      token: '',
      clientId: owner,
      scopes: principal ? [...principal.scopes] : [],
      extra: { address: req.ip ?? req.socket.remoteAddress ?? 'unknown' },
    };
    const sessionId = req.get('mcp-session-id');
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId);
      if (!session || session.owner !== owner) {
        throw new SkillError(
          'NOT_FOUND',
          'No such MCP session (it ended, or lives on another gateway): initialize a new one',
        );
      }
      session.lastSeen = Date.now();
      await session.transport.handleRequest(req, res, req.body);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      throw new SkillError(
        'INVALID_INPUT',
        'Without an Mcp-Session-Id header, only an initialize request is taken',
      );
    }
    if (this.sessions.size >= this.deps.maxSessions) {
      throw new SkillError('SERVICE_UNAVAILABLE', 'This gateway keeps as many MCP sessions as it may; retry');
    }
    const session = await this.open(owner);
    await session.transport.handleRequest(req, res, req.body);
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

  private async open(owner: string): Promise<Session> {
    // Aborted as the session ends, before the SDK aborts its requests' handlers: a call then stops
    // following its execution without taking that abort for the client's cancellation.
    const ending = new AbortController();
    const server = skillMcpServer(this.deps, AbortSignal.any([this.closing.signal, ending.signal]));
    const session: Session = {
      server,
      owner,
      lastSeen: Date.now(),
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          this.sessions.set(id, session);
        },
        onsessionclosed: (id) => {
          this.sessions.delete(id);
        },
      }),
    };
    // Set before connect(), which calls it first and then aborts the requests in flight.
    session.transport.onclose = () => {
      ending.abort();
      const id = session.transport.sessionId;
      if (id !== undefined) this.sessions.delete(id);
    };
    await server.connect(session.transport);
    return session;
  }

  private dropIdle(): void {
    const before = Date.now() - IDLE_MS;
    for (const [id, session] of this.sessions) {
      if (session.lastSeen >= before) continue;
      this.sessions.delete(id);
      session.server.close().catch(() => {});
    }
  }
}
