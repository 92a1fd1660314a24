import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/agent-mcp';
import { Client } from '../support/client';
import { TestSystem } from '../support/system';

describe('when Redis goes away', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ WORKER_SKILLS: 'echo' });
  });
  afterAll(() => system?.stop());

  it('answers 503 within a second while Redis is down, and recovers when it is back', async () => {
    const { client } = system;
    const before = await client.run('echo', { text: 'before' });
    expect(before.final.status).toBe('completed');

    await system.redis.kill();
    for (const request of [
      () => client.invoke('echo', { text: 'during' }),
      () => client.request(`/skills/echo/status/${before.final.execution_id}`),
      () => client.request('/skills'),
      () => client.request('/readyz'),
    ]) {
      const started = performance.now();
      const answer = await request();
      const tookMs = performance.now() - started;
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', recoverable: true } });
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(tookMs).toBeLessThan(1000);
    }
    expect((await client.request('/healthz')).status).toBe(200);

    await system.redis.restart();
    // The gateway reconnects by itself, and the worker resumes consuming.
    await expect.poll(async () => (await client.request('/readyz')).status, { timeout: 15_000 }).toBe(200);
    await expect
      .poll(async () => (await client.invoke('echo', { text: 'after' })).status, {
        timeout: 15_000,
        interval: 250,
      })
      .toBe(202);
    const after = await client.run('echo', { text: 'after again' });
    expect(after.final.status).toBe('completed');
  });

  it("answers the agent protocols in JSON-RPC while Redis is down, with our unavailable error, never Redis' words", async () => {
    const { client } = system;
    await expect.poll(async () => (await client.request('/readyz')).status, { timeout: 15_000 }).toBe(200);
    const mcp: McpClient = await connectMcp(system.gateway.url);
    const a2a = (id: number, method: string, params: unknown) =>
      client.request<{ error?: { code: number; message: string } }>('/a2a', {
        json: { jsonrpc: '2.0', id, method, params },
      });
    const unavailable = /The queue is unavailable \(Redis cannot be reached\)/;
    try {
      await system.redis.kill();
      const listed = await mcp.listTools().catch((error: McpError) => error);
      expect(listed).toBeInstanceOf(McpError);
      expect(listed).toMatchObject({
        code: ErrorCode.InternalError,
        data: { error: { code: 'SERVICE_UNAVAILABLE' } },
      });
      // A refused tool call is a result the model reads, our envelope in its text.
      const called = await mcp.callTool({ name: 'echo', arguments: { text: 'during' } });
      expect(called.isError).toBe(true);
      const [text] = called.content as { text: string }[];
      expect(JSON.parse(String(text?.text))).toMatchObject({
        error: { code: 'SERVICE_UNAVAILABLE', recoverable: true },
      });
      const message = {
        kind: 'message',
        messageId: 'm-outage',
        role: 'user',
        parts: [{ kind: 'data', data: { text: 'during' } }],
        metadata: { skill_id: 'echo' },
      };
      // The A2A SDK answers an error that is none of its own as an internal one, with our message.
      for (const answer of [
        await a2a(1, 'message/send', { message }),
        await a2a(2, 'tasks/get', { id: 'x' }),
      ]) {
        expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32603 } });
        expect(answer.body.error?.message).toMatch(unavailable);
      }
    } finally {
      await mcp.close();
      await system.redis.restart();
    }
  });
});

describe('when Redis goes away under a gateway that knows the skill', () => {
  // The skill's versions come from the gateway's cache (SKILL_CACHE_MS), so the launch is the
  // invocation's first command to Redis. REDIS_TIMEOUT_MS far above what an immediate answer takes,
  // and below the eight seconds a launch's fate may be asked for.
  const REDIS_TIMEOUT_MS = 5000;
  let system: TestSystem;
  let client: Client;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ WORKER_SKILLS: 'echo' });
    const gateway = await system.addGateway({
      REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS),
      SKILL_CACHE_MS: '600000',
    });
    client = new Client(gateway.url);
  });
  afterAll(() => system?.stop());

  it('answers the first invocation 503 within REDIS_TIMEOUT_MS: a launch that could not be sent has no fate to ask about', async () => {
    await expect.poll(async () => (await client.request('/readyz')).status).toBe(200);
    expect((await client.run('echo', { text: 'before' })).final.status).toBe('completed');

    await system.redis.kill();
    // The next invocation once the gateway has met the outage (as /readyz shows): sent the instant
    // Redis dies, a launch may still leave on a socket the process has not yet seen close, and its
    // fate is then rightly asked (fault test 2's case). The launch that cannot be sent is this one.
    await expect.poll(async () => (await client.request('/readyz')).status).toBe(503);
    const started = performance.now();
    const answer = await client.invoke('echo', { text: 'while away' });
    const tookMs = performance.now() - started;
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', recoverable: true } });
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(tookMs).toBeLessThan(REDIS_TIMEOUT_MS);

    await system.redis.restart();
    await expect
      .poll(async () => (await client.invoke('echo', { text: 'back' })).status, { interval: 250 })
      .toBe(202);
  });
});
