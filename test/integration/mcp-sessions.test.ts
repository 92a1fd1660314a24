import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSystem } from '../support/system';

type Json = Record<string, unknown>;

/**
 * One client cannot fill a gateway's MCP sessions: each caller, and each anonymous address, holds at
 * most its own cap (its idlest session makes room; 429 when each is answering a request), and a
 * gateway at MCP_MAX_SESSIONS closes the least recently used session not answering a request to
 * admit a new one, rather than refusing everyone (D5).
 */
describe('MCP sessions: a cap per caller and per anonymous address, and room made at the gateway cap', () => {
  let system: TestSystem;
  let gates: string;
  const keys: Record<string, string> = {};

  const post = (body: Json, headers: Record<string, string>) =>
    fetch(`${system.gateway.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  /** An initialize over plain HTTP, as `who` (anonymous without a key): the session id, or the refusal. */
  async function initialize(who: string): Promise<{ status: number; session?: string; body: string }> {
    const response = await post(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: who, version: '1' } },
      },
      keys[who] ? { 'x-api-key': keys[who] } : {},
    );
    const session = response.headers.get('mcp-session-id') ?? undefined;
    return { status: response.status, body: await response.text(), ...(session ? { session } : {}) };
  }

  async function opened(who: string): Promise<string> {
    const answer = await initialize(who);
    expect(answer.status, answer.body).toBe(200);
    return String(answer.session);
  }

  /** A request of the session (ping): 200 while it lives, 404 once it is closed. */
  async function ping(who: string, session: string): Promise<{ status: number; body: string }> {
    const response = await post(
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { 'mcp-session-id': session, ...(keys[who] ? { 'x-api-key': keys[who] } : {}) },
    );
    return { status: response.status, body: await response.text() };
  }

  beforeAll(async () => {
    gates = mkdtempSync(join(tmpdir(), 'mcp-sessions-'));
    system = await TestSystem.start({
      MCP_MAX_SESSIONS: '4',
      MCP_MAX_SESSIONS_PER_CALLER: '2',
      MCP_MAX_SESSIONS_PER_ADDRESS: '2',
    });
    await system.addWorker({ WORKER_SKILLS: 'gated', WORKER_CONCURRENCY: '4' });
    keys.alice = await system.client.createKey('agent-alice');
    keys.bob = await system.client.createKey('agent-bob');
  });
  afterAll(async () => {
    await system?.stop();
    rmSync(gates, { recursive: true, force: true });
  });

  /** A tools/call of `gated` on the session, in flight until its gate file is written. */
  async function busy(who: string, session: string, gate: string): Promise<Response> {
    const answering = await post(
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'gated', arguments: { gate } } },
      { 'mcp-session-id': session, ...(keys[who] ? { 'x-api-key': keys[who] } : {}) },
    );
    expect(answering.status).toBe(200);
    return answering;
  }

  /** Ends the sessions (DELETE), so that the next test starts from none. */
  async function end(who: string, sessions: string[]): Promise<void> {
    for (const session of sessions) {
      await fetch(`${system.gateway.url}/mcp`, {
        method: 'DELETE',
        headers: { 'mcp-session-id': session, ...(keys[who] ? { 'x-api-key': keys[who] } : {}) },
      });
    }
  }

  it("gives a client at its own cap its idlest session's place, and 429 when each of its sessions is answering", async () => {
    const gate = join(gates, 'own-cap');
    const [first, second] = [await opened('anonymous'), await opened('anonymous')];
    const firstCall = await busy('anonymous', first, gate);
    // At its cap: its session that answers nothing (the second) makes room; the busy one stays.
    const third = await opened('anonymous');
    expect((await ping('anonymous', second)).status).toBe(404);
    expect((await ping('anonymous', third)).status).toBe(200);

    const thirdCall = await busy('anonymous', third, gate);
    const refused = await initialize('anonymous');
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32000, data: { error: { code: 'RATE_LIMIT_EXCEEDED' } } },
    });
    // Another caller is not counted against it.
    const alices = await opened('alice');

    writeFileSync(gate, '');
    expect(await firstCall.text()).toContain('"attempt":1');
    expect(await thirdCall.text()).toContain('"attempt":1');
    await end('anonymous', [first, third]);
    await end('alice', [alices]);
  });

  it("admits a new caller at the gateway's cap by closing the least recently used session not answering a request", async () => {
    const gate = join(gates, 'gateway-cap');
    const anonymous = [await opened('anonymous'), await opened('anonymous')];
    const alice = [await opened('alice'), await opened('alice')];
    // The gateway is full. The first anonymous session, though the least recently used, is
    // answering a call; the others are used after it, in this order.
    const call = await busy('anonymous', String(anonymous[0]), gate);
    for (const [who, session] of [
      ['anonymous', anonymous[1]],
      ['alice', alice[0]],
      ['alice', alice[1]],
    ] as const) {
      expect((await ping(who, String(session))).status).toBe(200);
    }

    const bob = await opened('bob');
    const closed = await ping('anonymous', String(anonymous[1]));
    expect(closed.status).toBe(404);
    expect(JSON.parse(closed.body)).toMatchObject({
      error: { code: -32000, data: { error: { code: 'NOT_FOUND' } } },
    });
    for (const [who, session] of [
      ['anonymous', anonymous[0]],
      ['alice', alice[0]],
      ['alice', alice[1]],
      ['bob', bob],
    ] as const) {
      expect((await ping(who, String(session))).status).toBe(200);
    }
    // The call it was answering goes on to its result.
    writeFileSync(gate, '');
    expect(await call.text()).toContain('"attempt":1');
  });
});
