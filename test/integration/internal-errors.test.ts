import { RedisServerProcess } from '@skillrun/redis-server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/agent-mcp';
import { Client } from '../support/client';
import { mcpRequest } from '../support/mcp-json-rpc';
import {
  type ServiceProcess,
  type StartedGateway,
  startGateway,
  startWorker,
} from '../support/service-process';

// A fault of ours is not an outage: only what says Redis is away answers 503. The fault here is
// injected in Redis itself (an execution's record replaced by a string, so the store's read script
// fails with WRONGTYPE, as a bug in a script of ours would): 500 INTERNAL_ERROR, logged once with
// its stack and the request's id, which the answer carries. Over the agent protocols' JSON-RPC
// (MCP, both revisions, and A2A) the same fault is an Internal error that carries the request's
// id and never the fault's own text, logged once the same way (a tool's registry entry broken the
// same way for tools/call). Then Redis stopped: 503 (MCP and A2A: Redis away), not logged.

const BROKEN_TOOL = 'broken_tool';
const INTERNAL_ERROR = -32603;

interface RpcError {
  code: number;
  message: string;
  data?: { error?: { code?: string; details?: { request_id?: string } } };
}

interface ErrorAnswerBody {
  error: { code: string; message: string; details?: { request_id?: string } };
}

describe('errors: a fault of ours is 500 (a JSON-RPC Internal error) and logged, Redis away is 503', () => {
  let redis: RedisServerProcess;
  let gateway: StartedGateway;
  let worker: ServiceProcess;
  let client: Client;
  let broken: string;

  beforeAll(async () => {
    redis = await RedisServerProcess.start();
    worker = await startWorker({ REDIS_URL: redis.url, WORKER_SKILLS: 'echo' });
    gateway = await startGateway({ REDIS_URL: redis.url });
    client = new Client(gateway.url);
    const { final } = await client.run('echo', { text: 'then broken' });
    broken = String(final.execution_id);
    // The record becomes a string: every read of it is refused by Redis as the wrong type.
    const key = `{skillrun}:exec:${broken}`;
    const admin = new Redis(redis.url);
    try {
      expect(await admin.type(key)).toBe('hash');
      await admin.set(key, 'not a record');
      await admin.set(`{skillrun}:registry:skill:${BROKEN_TOOL}`, 'not a registry entry');
    } finally {
      admin.disconnect();
    }
  });

  afterAll(async () => {
    await Promise.all([gateway?.process.stop(), worker?.stop()]);
    await redis?.stop();
  });

  const unhandled = () => gateway.process.logs.filter((line) => line.msg === 'unhandled error');

  it("answers 500 INTERNAL_ERROR with the caller's request id, logged once with the stack", async () => {
    const answer = await client.request<ErrorAnswerBody>(`/skills/echo/status/${broken}`, {
      headers: { 'x-request-id': 'fault-1' },
    });
    expect(answer.status).toBe(500);
    expect(answer.body.error).toMatchObject({
      code: 'INTERNAL_ERROR',
      message: 'An unexpected error occurred',
      details: { request_id: 'fault-1' },
    });
    expect(answer.headers.get('x-request-id')).toBe('fault-1');
    expect(JSON.stringify(answer.body)).not.toContain('WRONGTYPE');
    const line = await gateway.process.waitForLog((one) => one.request_id === 'fault-1');
    expect(line).toMatchObject({ level: 50, msg: 'unhandled error', path: `/skills/echo/status/${broken}` });
    expect(String((line.err as { stack?: string }).stack)).toContain('WRONGTYPE');
    expect(unhandled().filter((one) => one.request_id === 'fault-1')).toHaveLength(1);
  });

  it('makes a request id when the caller sent none (or one that is not a short token)', async () => {
    const answer = await client.request<ErrorAnswerBody>(`/skills/echo/result/${broken}`, {
      headers: { 'x-request-id': 'not a token\tat all' },
    });
    expect(answer.status).toBe(500);
    const id = answer.body.error.details?.request_id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers.get('x-request-id')).toBe(id);
    await gateway.process.waitForLog((one) => one.request_id === id);
  });

  /** The fault's one log line, with its stack (the WRONGTYPE reply) and the request's id. */
  const expectLoggedOnce = async (requestId: string, where: string) => {
    const line = await gateway.process.waitForLog((one) => one.request_id === requestId);
    expect(line).toMatchObject({ level: 50, msg: 'unhandled error', where });
    expect(String((line.err as { stack?: string }).stack)).toContain('WRONGTYPE');
    expect(unhandled().filter((one) => one.request_id === requestId)).toHaveLength(1);
  };

  const expectInternalError = (error: RpcError | undefined, requestId: string) => {
    expect(error).toMatchObject({
      code: INTERNAL_ERROR,
      // The SDK 1.x client's error prefixes the code.
      message: expect.stringContaining('An unexpected error occurred'),
      data: { error: { code: 'INTERNAL_ERROR', details: { request_id: requestId } } },
    });
    expect(JSON.stringify(error)).not.toContain('WRONGTYPE');
  };

  it('answers an MCP tools/call (revision 2026-07-28) that meets a fault with Internal error', async () => {
    const answer = await mcpRequest(
      gateway.url,
      'tools/call',
      { name: BROKEN_TOOL, arguments: {} },
      { headers: { 'x-request-id': 'mcp-fault-1' } },
    );
    expectInternalError(answer.body.error as RpcError | undefined, 'mcp-fault-1');
    await expectLoggedOnce('mcp-fault-1', 'mcp tools/call');
  });

  it('answers an MCP session tools/call (revision 2025-11-25) the same, and the session lives on', async () => {
    const mcp = await connectMcp(gateway.url, { 'x-request-id': 'mcp-fault-2' });
    try {
      const refused = await mcp
        .callTool({ name: BROKEN_TOOL, arguments: {} })
        .catch((error: unknown) => error);
      expectInternalError(refused as RpcError, 'mcp-fault-2');
      await expectLoggedOnce('mcp-fault-2', 'mcp tools/call');
      expect((await mcp.listTools()).tools.map((tool) => tool.name)).toContain('echo');
    } finally {
      await mcp.close();
    }
  });

  it('answers an A2A GetTask of a broken record with an internal error, logged once', async () => {
    const answer = await client.request<{ error?: RpcError }>('/a2a', {
      json: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: broken } },
      headers: { 'a2a-version': '1.0', 'x-request-id': 'a2a-fault-1' },
    });
    expect(answer.body.error).toMatchObject({
      code: INTERNAL_ERROR,
      message: 'An unexpected error occurred',
    });
    expect(JSON.stringify(answer.body)).not.toContain('WRONGTYPE');
    expect(JSON.stringify(answer.body)).toContain('a2a-fault-1');
    await expectLoggedOnce('a2a-fault-1', 'a2a');
  });

  it('answers 503 with Retry-After once Redis is stopped, and logs no fault for it', async () => {
    const before = unhandled().length;
    await redis.stop();
    const answer = await client.request<ErrorAnswerBody>(`/skills/echo/status/${broken}`);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.body.error.code).toBe('SERVICE_UNAVAILABLE');
    const invoked = await client.invoke('echo', { text: 'Redis away' });
    expect(invoked.status).toBe(503);
    const mcp = await mcpRequest(gateway.url, 'tools/call', { name: 'echo', arguments: { text: 'away' } });
    expect(JSON.stringify(mcp.body)).toContain('SERVICE_UNAVAILABLE');
    const a2a = await client.request<{ error?: RpcError }>('/a2a', {
      json: { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: broken } },
      headers: { 'a2a-version': '1.0' },
    });
    expect(a2a.body.error?.message).not.toBe('An unexpected error occurred');
    expect(unhandled()).toHaveLength(before);
  });
});
