import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Execution } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/agent-mcp';
import { type JwksServer, startJwksServer } from '../support/jwks-server';
import { mcpRequest } from '../support/mcp-json-rpc';
import { ADMIN_HEADERS, fixtureSkills } from '../support/service-process';
import { TestSystem } from '../support/system';

const SKILLS_DIR = [fixtureSkills, fileURLToPath(new URL('../fixtures/stream-skills', import.meta.url))].join(
  delimiter,
);

type Json = Record<string, unknown>;
const textOf = (result: Json) =>
  (result.content as { type: string; text: string }[] | undefined)?.[0]?.text ?? '';

describe('MCP at /mcp (Streamable HTTP), with the MCP SDK client', () => {
  let system: TestSystem;
  let jwks: JwksServer;
  let key: string;
  let mcp: McpClient;
  const opened: McpClient[] = [];

  /** The sleepy execution a tool call started, once the history lists it (not yet ended). */
  async function unfinishedSleepy(): Promise<Execution> {
    let execution: Execution | undefined;
    await expect
      .poll(async () => {
        const listed = await system.client.request<{ executions: Execution[] }>(
          '/executions?skill_id=sleepy&status=accepted,running',
          { headers: { 'x-api-key': key } },
        );
        execution = listed.body.executions[0];
        return execution?.execution_id;
      })
      .toBeDefined();
    return execution as Execution;
  }

  async function connect(headers: Record<string, string>, options = {}) {
    const client = await connectMcp(system.gateway.url, headers, options);
    opened.push(client);
    return client;
  }

  beforeAll(async () => {
    jwks = await startJwksServer();
    system = await TestSystem.start({
      OAUTH_ISSUER: jwks.issuer,
      OAUTH_AUDIENCE: jwks.audience,
      OAUTH_JWKS_URL: jwks.jwksUrl,
      SKILLS_DIR,
      MCP_CALL_WAIT_SECONDS: '2',
      MCP_TOOLS_PAGE_SIZE: '3',
      MCP_LIST_CHANGED_POLL_MS: '200',
    });
    await system.addWorker({ WORKER_SKILLS: 'echo,sleepy,stepper,thrower,flaky', WORKER_CONCURRENCY: '8' });
    key = await system.client.createKey('agent-alice');
    mcp = await connect({ 'x-api-key': key });
  });
  afterAll(async () => {
    await Promise.all(opened.map((client) => client.close().catch(() => {})));
    await system?.stop();
    await jwks?.close();
  });

  it('lists the skills as tools, page by page with cursors, each with its schemas, title and annotations', async () => {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await mcp.listTools(cursor === undefined ? {} : { cursor });
      expect(page.tools.length).toBeLessThanOrEqual(3);
      tools.push(...page.tools);
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBeGreaterThan(1);
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'sleepy', 'stepper']));
    expect(new Set(names).size).toBe(names.length);
    expect(tools.find((tool) => tool.name === 'echo')).toMatchObject({
      title: 'echo',
      description: expect.stringContaining('returns its input'),
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      outputSchema: { type: 'object', required: ['text', 'count'] },
      annotations: { title: 'echo' },
      execution: { taskSupport: 'optional' },
    });
    const invalid = await mcp.listTools({ cursor: 'not-a-cursor' }).catch((error: Error) => error);
    expect(invalid).toBeInstanceOf(Error);
  });

  it('calls a skill through the queue and answers its output as structuredContent and text', async () => {
    const result = await mcp.callTool({ name: 'echo', arguments: { text: 'hi', count: 2 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ text: 'hihi', count: 2 });
    expect(JSON.parse(textOf(result))).toMatchObject({ text: 'hihi', count: 2 });
    // Recorded as any invocation is, under the key's caller.
    const history = await system.client.request<{ executions: Execution[] }>('/executions?skill_id=echo', {
      headers: { 'x-api-key': key },
    });
    expect(history.body.executions[0]).toMatchObject({ caller: { id: 'agent-alice' }, status: 'completed' });
  });

  it("takes a call's own Idempotency-Key in _meta: a repeat answers the first execution's output", async () => {
    const meta = { 'io.skillrun/idempotency-key': `mcp-${Date.now()}` };
    const first = await mcp.callTool({ name: 'sleepy', arguments: { ms: 50, label: 'once' }, _meta: meta });
    const again = await mcp.callTool({ name: 'sleepy', arguments: { ms: 50, label: 'once' }, _meta: meta });
    expect(again.structuredContent).toEqual(first.structuredContent);
    const history = await system.client.request<{ executions: Execution[] }>('/executions?skill_id=sleepy', {
      headers: { 'x-api-key': key },
    });
    const labelled = history.body.executions.filter((execution) => execution.status === 'completed');
    expect(labelled.length).toBe(1);
    const other = await mcp.callTool({ name: 'sleepy', arguments: { ms: 50, label: 'twice' }, _meta: meta });
    expect(other.isError).toBe(true);
    expect(JSON.parse(textOf(other))).toMatchObject({ error: { code: 'IDEMPOTENCY_KEY_REUSED' } });
  });

  it('answers bad arguments, an unknown tool and a failing skill with an error result carrying our envelope', async () => {
    const bad = await mcp.callTool({ name: 'echo', arguments: { text: '', count: 99 } });
    expect(bad.isError).toBe(true);
    const envelope = JSON.parse(textOf(bad)) as { error: { code: string; details: Json[] } };
    expect(['INVALID_INPUT', 'PARAM_OUT_OF_RANGE']).toContain(envelope.error.code);
    expect(envelope.error.details.map((detail) => detail.path)).toEqual(
      expect.arrayContaining(['/inputs/count']),
    );
    const unknown = await mcp.callTool({ name: 'no_such_skill', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(JSON.parse(textOf(unknown))).toMatchObject({ error: { code: 'SKILL_NOT_FOUND' } });
    const thrown = await mcp.callTool({ name: 'thrower', arguments: {} });
    expect(thrown.isError).toBe(true);
    expect(JSON.parse(textOf(thrown))).toMatchObject({
      error: { code: expect.any(String), message: expect.any(String) },
    });
    expect(textOf(thrown)).not.toMatch(/\n\s+at /);
  });

  it("sends the skill's progress as notifications/progress", async () => {
    const seen: number[] = [];
    const result = await mcp.callTool(
      { name: 'stepper', arguments: { steps: 4, pause_ms: 150 } },
      CallToolResultSchema,
      {
        onprogress: ({ progress, total }) => {
          expect(total).toBe(100);
          seen.push(progress);
        },
      },
    );
    expect(result.structuredContent).toEqual({ steps: 4 });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.at(-1)).toBeLessThanOrEqual(100);
  });

  it('answers a skill that outlasts MCP_CALL_WAIT_SECONDS with where its result will be; it runs on', async () => {
    const started = Date.now();
    const result = await mcp.callTool({ name: 'sleepy', arguments: { ms: 3500 } });
    expect(Date.now() - started).toBeLessThan(3400);
    expect(result.isError).toBe(true);
    const pending = JSON.parse(textOf(result)) as {
      execution_id: string;
      status: string;
      result_url: string;
    };
    expect(pending.status).toMatch(/accepted|running/);
    expect(pending.result_url).toContain(`/skills/sleepy/result/${pending.execution_id}`);
    const done = await system.client.request<Execution>(
      `/skills/sleepy/result/${pending.execution_id}?wait=10`,
      { headers: { 'x-api-key': key } },
    );
    expect(done.body).toMatchObject({ status: 'completed', output: { slept_ms: expect.any(Number) } });
  });

  it('cancels the execution when the client cancels the request (notifications/cancelled)', async () => {
    const abort = new AbortController();
    const call = mcp
      .callTool({ name: 'sleepy', arguments: { ms: 4000, label: 'to-cancel' } }, CallToolResultSchema, {
        signal: abort.signal,
      })
      .catch((error: Error) => error);
    const execution = await unfinishedSleepy();
    abort.abort('the user changed their mind');
    expect(await call).toBeInstanceOf(Error);
    await expect
      .poll(
        async () =>
          (await system.client.status('sleepy', String(execution?.execution_id), { 'x-api-key': key }))
            .status,
      )
      .toBe('canceled');
  });

  it('runs a call as a task: created at once, read with tasks/get, its result with tasks/result', async () => {
    const messages: { type: string; status?: string; taskId?: string; pollInterval?: number }[] = [];
    let result: Json | undefined;
    const stream = mcp.experimental.tasks.callToolStream(
      { name: 'sleepy', arguments: { ms: 2500, label: 'as-task' } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    for await (const message of stream) {
      if (message.type === 'taskCreated')
        messages.push({
          type: message.type,
          taskId: message.task.taskId,
          status: message.task.status,
          pollInterval: message.task.pollInterval,
        });
      if (message.type === 'taskStatus') messages.push({ type: message.type, status: message.task.status });
      if (message.type === 'result') result = message.result as Json;
      if (message.type === 'error') throw message.error;
    }
    const created = messages[0];
    expect(created).toMatchObject({ type: 'taskCreated', status: 'working' });
    // Polled as Retry-After-Ms says: a tenth of its age (just created), from 100 ms to 1 s.
    expect(created?.pollInterval).toBeGreaterThanOrEqual(100);
    expect(created?.pollInterval).toBeLessThan(1000);
    expect(messages.at(-1)).toMatchObject({ type: 'taskStatus', status: 'completed' });
    expect(result).toMatchObject({ structuredContent: { slept_ms: expect.any(Number), label: 'as-task' } });
    // The task is the execution.
    const execution = await system.client.status('sleepy', String(created?.taskId), { 'x-api-key': key });
    expect(execution.status).toBe('completed');
    const task = await mcp.experimental.tasks.getTask(String(created?.taskId));
    expect(task).toMatchObject({ status: 'completed', taskId: created?.taskId, ttl: expect.any(Number) });
  });

  it('cancels a task with tasks/cancel, and finds no task of another caller', async () => {
    const stream = mcp.experimental.tasks.callToolStream(
      { name: 'sleepy', arguments: { ms: 4000 } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    const first = await stream.next();
    const taskId = (first.value as { task: { taskId: string } }).task.taskId;
    await stream.return(undefined);
    const other = await connect({ 'x-api-key': await system.client.createKey('agent-bob') });
    await expect(other.experimental.tasks.getTask(taskId)).rejects.toThrow();
    await expect(other.experimental.tasks.cancelTask(taskId)).rejects.toThrow();
    const canceled = await mcp.experimental.tasks.cancelTask(taskId);
    expect(canceled.status).toBe('cancelled');
    expect((await system.client.status('sleepy', taskId, { 'x-api-key': key })).status).toBe('canceled');
    await expect(mcp.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/terminal/);
  });

  it('tells the session when the tools change (a version deprecated)', async () => {
    let changes = 0;
    const listener = await connect({ 'x-api-key': key });
    listener.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    // The session's GET stream is open once the client has connected; give the watch a first read.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const deprecated = await system.client.request('/skills/flaky/versions/1.0.0/deprecation', {
      method: 'PUT',
      json: { message: 'use echo' },
      headers: ADMIN_HEADERS,
    });
    expect(deprecated.status).toBe(200);
    await expect.poll(() => changes).toBeGreaterThan(0);
  });

  it("takes an OAuth 2 bearer token as HTTP does, in both eras: the call is the token subject's", async () => {
    const token = await jwks.sign({ sub: 'agent-jwt', scope: 'skill:invoke skill:read' });
    const bearer = { authorization: `Bearer ${token}` };
    const viaToken = await connect(bearer);
    const result = await viaToken.callTool({ name: 'echo', arguments: { text: 'jwt' } });
    expect(result.structuredContent).toMatchObject({ text: 'jwt' });
    const stateless = await mcpRequest(
      system.gateway.url,
      'tools/call',
      { name: 'echo', arguments: { text: 'jwt-2026' } },
      { headers: bearer },
    );
    expect(stateless.body).toMatchObject({ result: { structuredContent: { text: 'jwt-2026' } } });
    const history = await system.client.request<{ executions: Execution[] }>('/executions?skill_id=echo', {
      headers: bearer,
    });
    expect(history.body.executions.map((execution) => execution.caller.id)).toEqual([
      'agent-jwt',
      'agent-jwt',
    ]);
    const forged = await jwks.sign({ sub: 'agent-jwt' }, { key: 'other' });
    await expect(connectMcp(system.gateway.url, { authorization: `Bearer ${forged}` })).rejects.toThrow(
      /AUTH_REQUIRED/,
    );
    const forgedStateless = await mcpRequest(
      system.gateway.url,
      'tools/list',
      {},
      {
        headers: { authorization: `Bearer ${forged}` },
      },
    );
    expect(forgedStateless.status).toBe(401);
  });

  it('lets a gateway shut down promptly with a session, its GET stream and a call in flight, which runs on', async () => {
    const replica = await system.addGateway();
    const client = await connectMcp(replica.url, { 'x-api-key': key });
    opened.push(client);
    const call = client
      .callTool({ name: 'sleepy', arguments: { ms: 1500, label: 'outlives-its-gateway' } })
      .catch((error: Error) => error);
    const execution = await unfinishedSleepy();
    const started = Date.now();
    expect(await replica.process.stop()).toBe(0);
    expect(Date.now() - started).toBeLessThan(3000);
    await call;
    // The session ended with its gateway: not the client's cancellation, so the execution ran on.
    const done = await system.client.request<Execution>(
      `/skills/sleepy/result/${execution?.execution_id}?wait=10`,
      { headers: { 'x-api-key': key } },
    );
    expect(done.body).toMatchObject({ status: 'completed', output: { label: 'outlives-its-gateway' } });
  });

  it('refuses invalid credentials, a request without a session and a body that is not JSON in JSON-RPC', async () => {
    await expect(connectMcp(system.gateway.url, { 'x-api-key': 'srk_not-a-key' })).rejects.toThrow(
      /AUTH_REQUIRED/,
    );
    const stray = await system.client.request('/mcp', {
      json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(stray.status).toBe(400);
    expect(stray.body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32600, data: { error: { code: 'INVALID_INPUT' } } },
    });
    const gone = await system.client.request('/mcp', {
      json: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': 'no-such-session' },
    });
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({
      id: 2,
      error: { code: -32000, data: { error: { code: 'NOT_FOUND' } } },
    });
    const malformed = await system.client.request('/mcp', {
      method: 'POST',
      body: '{"jsonrpc": "2.0", "id": 3,',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });
});
