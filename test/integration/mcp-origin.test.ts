import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpRequest } from '../support/mcp-json-rpc';
import { type RawAnswer, rawRequest } from '../support/raw-http';
import { TestSystem } from '../support/system';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'origin-test', version: '1' },
  },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const ALLOWED = 'https://agents.example.com';

/**
 * The Streamable HTTP transport's MUST: a request to /mcp whose Origin header is present and not
 * allowed is 403, so that a web page elsewhere cannot drive a local skillrun through its visitor's
 * browser (DNS rebinding); no Origin, the gateway's own and the allowed ones pass.
 */
describe('MCP refuses web pages of foreign origins (DNS rebinding)', () => {
  let system: TestSystem;
  const agent = new Agent();

  /** An initialize with these headers (Host included: node:http sends it as written). */
  const initialize = (headers: Record<string, string>): Promise<RawAnswer> =>
    rawRequest(
      system.gateway.url,
      { method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, ...headers }, body: INITIALIZE },
      agent,
    );

  beforeAll(async () => {
    system = await TestSystem.start({ MCP_ALLOWED_ORIGINS: `${ALLOWED}, http://localhost:6274/` });
  });
  afterAll(async () => {
    agent.destroy();
    await system?.stop();
  });

  it('refuses a foreign Origin with 403 (a JSON-RPC error carrying our envelope), a rebound name too', async () => {
    const port = new URL(system.gateway.url).port;
    const foreign: Record<string, string>[] = [
      { origin: 'http://evil.example.com' },
      { origin: 'null' },
      // A page whose name was rebound to this gateway: its Origin is its Host, an attacker's name.
      { origin: `http://evil.example.com:${port}`, host: `evil.example.com:${port}` },
    ];
    for (const headers of foreign) {
      const answer = await initialize(headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(answer.text)).toMatchObject({
        error: { data: { error: { code: 'ACCESS_DENIED' } } },
      });
    }
    // A request of revision 2026-07-28 (no session) as well.
    const modern = await mcpRequest(
      system.gateway.url,
      'tools/list',
      {},
      { headers: { origin: 'http://evil.example.com' } },
    );
    expect(modern.status).toBe(403);
    expect(modern.body).toMatchObject({ error: { data: { error: { code: 'ACCESS_DENIED' } } } });
  });

  it('takes no Origin, its own base URL, an allowed one, and its own address or localhost', async () => {
    const port = new URL(system.gateway.url).port;
    const allowed: Record<string, string>[] = [
      {},
      { origin: system.gateway.url },
      { origin: ALLOWED },
      { origin: 'http://localhost:6274' },
      { origin: `http://localhost:${port}`, host: `localhost:${port}` },
      { origin: `http://[::1]:${port}`, host: `[::1]:${port}` },
    ];
    for (const headers of allowed) {
      const answer = await initialize(headers);
      expect(answer.status, `${JSON.stringify(headers)}: ${answer.text}`).toBe(200);
      expect(answer.headers['mcp-session-id']).toBeDefined();
    }
  });

  it("refuses a foreign Origin on a session's GET stream and DELETE as well", async () => {
    const session = String((await initialize({})).headers['mcp-session-id']);
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${system.gateway.url}/mcp`, {
        method,
        headers: { ...MCP_HEADERS, 'mcp-session-id': session, origin: 'http://evil.example.com' },
      });
      expect(response.status, method).toBe(403);
      expect(await response.json()).toMatchObject({ error: { data: { error: { code: 'ACCESS_DENIED' } } } });
    }
    // The session is still there for its own client.
    const deleted = await fetch(`${system.gateway.url}/mcp`, {
      method: 'DELETE',
      headers: { ...MCP_HEADERS, 'mcp-session-id': session },
    });
    expect(deleted.status).toBe(200);
  });
});
