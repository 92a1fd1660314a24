import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Execution } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, connectModernMcp } from '../support/agent-mcp';
import { mcpRequest, type RpcAnswer, TASKS_EXTENSION } from '../support/mcp-json-rpc';
import type { StartedGateway } from '../support/service-process';
import { fixtureSkills } from '../support/service-process';
import { TestSystem } from '../support/system';

const SKILLS_DIR = [fixtureSkills, fileURLToPath(new URL('../fixtures/stream-skills', import.meta.url))].join(
  delimiter,
);

type Json = Record<string, unknown>;

const resultOf = (answer: RpcAnswer) => answer.body.result as Json;
const errorOf = (answer: RpcAnswer) => answer.body.error as { code: number; message: string; data?: Json };

/**
 * /mcp is dual-era (revision 2026-07-28's compatibility matrix): a client of revision 2025-11-25
 * opens a session with initialize (the SDK's 1.x client), one of 2026-07-28 sends each request on
 * its own with the `_meta` envelope (the SDK's 2.x client, and plain JSON-RPC where it has no API:
 * the tasks extension, bad input). Both against the same running service.
 */
describe('MCP at /mcp, both eras: 2025-11-25 sessions and stateless 2026-07-28', () => {
  let system: TestSystem;
  let other: StartedGateway;
  let key: string;
  let headers: Record<string, string>;
  const closing: (() => Promise<void>)[] = [];

  /** All pages of tools/list, as plain JSON-RPC to `baseUrl`. */
  async function listAll(baseUrl: string): Promise<{ names: string[]; pages: Json[] }> {
    const pages: Json[] = [];
    let cursor: string | undefined;
    do {
      const answer = await mcpRequest(baseUrl, 'tools/list', cursor === undefined ? {} : { cursor }, {
        headers,
      });
      expect(answer.status).toBe(200);
      pages.push(resultOf(answer));
      cursor = resultOf(answer).nextCursor as string | undefined;
    } while (cursor !== undefined);
    return {
      names: pages.flatMap((page) => (page.tools as { name: string }[]).map((tool) => tool.name)),
      pages,
    };
  }

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR, MCP_CALL_WAIT_SECONDS: '2', MCP_TOOLS_PAGE_SIZE: '3' });
    other = await system.addGateway();
    await system.addWorker({ WORKER_SKILLS: 'echo,sleepy,stepper,thrower', WORKER_CONCURRENCY: '8' });
    key = await system.client.createKey('agent-era');
    headers = { 'x-api-key': key };
  });
  afterAll(async () => {
    await Promise.all(closing.map((close) => close().catch(() => {})));
    await system?.stop();
  });

  it('a 2025-11-25 client and a 2026-07-28 client both list and call the skills of the same service', async () => {
    const legacy = await connectMcp(system.gateway.url, headers);
    closing.push(() => legacy.close());
    const modern = await connectModernMcp(system.gateway.url, headers);
    closing.push(() => modern.close());
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(modern.getProtocolEra()).toBe('modern');

    const listed = async (
      list: (cursor?: string) => Promise<{ tools: { name: string }[]; nextCursor?: string }>,
    ) => {
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await list(cursor);
        names.push(...page.tools.map((tool) => tool.name));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return names;
    };
    const legacyNames = await listed((cursor) => legacy.listTools(cursor === undefined ? {} : { cursor }));
    const modernNames = await listed((cursor) => modern.listTools(cursor === undefined ? {} : { cursor }));
    expect(modernNames).toEqual(legacyNames);
    expect(modernNames).toEqual(expect.arrayContaining(['echo', 'sleepy', 'stepper']));

    const viaSession = await legacy.callTool({ name: 'echo', arguments: { text: 'hi', count: 2 } });
    const viaRequest = await modern.callTool({ name: 'echo', arguments: { text: 'hi', count: 2 } });
    expect(viaSession.structuredContent).toMatchObject({ text: 'hihi', count: 2 });
    expect(viaRequest.structuredContent).toMatchObject({ text: 'hihi', count: 2 });
    expect(viaRequest.isError).toBeFalsy();

    // Progress of the skill, on the call's own response stream.
    const seen: number[] = [];
    const stepped = await modern.callTool(
      { name: 'stepper', arguments: { steps: 4, pause_ms: 150 } },
      {
        onprogress: ({ progress }) => seen.push(progress),
      },
    );
    expect(stepped.structuredContent).toEqual({ steps: 4 });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });

  it('server/discover names both eras, our capabilities and the tasks extension', async () => {
    const answer = await mcpRequest(system.gateway.url, 'server/discover', {}, { headers });
    expect(answer.status).toBe(200);
    expect(resultOf(answer)).toMatchObject({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining(['2026-07-28', '2025-11-25']),
      capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
      instructions: expect.stringContaining('skill'),
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'skillrun' } },
    });
    // The SDK's client chooses among the versions it serves per request.
    const modern = await connectModernMcp(other.url, headers);
    closing.push(() => modern.close());
    expect(modern.getDiscoverResult()?.supportedVersions).toEqual(expect.arrayContaining(['2026-07-28']));
  });

  it('lists and calls statelessly, each request on either gateway, with no session', async () => {
    const [first, second] = await Promise.all([listAll(system.gateway.url), listAll(other.url)]);
    // The same tools in the same order from every gateway, each page cacheable by the caller only.
    expect(second.names).toEqual(first.names);
    expect(first.pages.length).toBeGreaterThan(1);
    for (const page of [...first.pages, ...second.pages]) {
      expect(page).toMatchObject({
        resultType: 'complete',
        ttlMs: expect.any(Number),
        cacheScope: 'private',
      });
    }
    const echo = (first.pages.flatMap((page) => page.tools) as Json[]).find((tool) => tool.name === 'echo');
    expect(echo).toMatchObject({ inputSchema: { type: 'object' }, outputSchema: { type: 'object' } });
    expect(echo).not.toHaveProperty('execution');

    for (const [index, baseUrl] of [system.gateway.url, other.url, system.gateway.url].entries()) {
      const answer = await mcpRequest(
        baseUrl,
        'tools/call',
        { name: 'echo', arguments: { text: `turn${index}` } },
        { headers },
      );
      expect(answer.headers.get('mcp-session-id')).toBeNull();
      expect(resultOf(answer)).toMatchObject({
        resultType: 'complete',
        structuredContent: { text: `turn${index}` },
      });
    }
  });

  it('hands a call that outlasts the wait over as a task, which tasks/get polls to its result on any gateway', async () => {
    const capabilities = { extensions: { [TASKS_EXTENSION]: {} } };
    const called = await mcpRequest(
      system.gateway.url,
      'tools/call',
      { name: 'sleepy', arguments: { ms: 3500, label: 'handed-over' } },
      { headers, capabilities },
    );
    const handle = resultOf(called);
    expect(handle).toMatchObject({
      resultType: 'task',
      status: 'working',
      taskId: expect.any(String),
      ttlMs: expect.any(Number),
      pollIntervalMs: expect.any(Number),
    });
    const taskId = String(handle.taskId);
    // The task is the execution.
    expect((await system.client.status('sleepy', taskId, headers)).skill_id).toBe('sleepy');

    let task: Json = {};
    await expect
      .poll(async () => {
        task = resultOf(await mcpRequest(other.url, 'tasks/get', { taskId }, { headers, capabilities }));
        return task.status;
      })
      .toBe('completed');
    expect(task).toMatchObject({
      resultType: 'complete',
      taskId,
      result: { structuredContent: { label: 'handed-over', slept_ms: expect.any(Number) } },
    });
    // No input is ever asked: an update is acknowledged and changes nothing.
    const updated = await mcpRequest(
      system.gateway.url,
      'tasks/update',
      { taskId, inputResponses: { anything: { action: 'accept', content: {} } } },
      { headers, capabilities },
    );
    expect(resultOf(updated), JSON.stringify(updated.body)).toMatchObject({ resultType: 'complete' });

    // A client without the extension gets where the result will be, as a session's call does.
    const plain = resultOf(
      await mcpRequest(
        system.gateway.url,
        'tools/call',
        { name: 'sleepy', arguments: { ms: 3500 } },
        { headers },
      ),
    );
    expect(plain).toMatchObject({ resultType: 'complete', isError: true });
    expect(JSON.parse((plain.content as { text: string }[])[0]?.text ?? '{}')).toMatchObject({
      status: expect.stringMatching(/accepted|running/),
      result_url: expect.stringContaining('/skills/sleepy/result/'),
    });
    // ... and may not poll tasks: -32021 names the capability it lacks.
    const refused = await mcpRequest(other.url, 'tasks/get', { taskId }, { headers });
    expect(errorOf(refused)).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
  });

  it('cancels the execution when the client closes the call’s stream', async () => {
    const abort = new AbortController();
    const call = mcpRequest(
      system.gateway.url,
      'tools/call',
      { name: 'stepper', arguments: { steps: 20, pause_ms: 300 }, _meta: { progressToken: 'p' } },
      { headers, signal: abort.signal },
    ).catch((error: Error) => error);
    let running: Execution | undefined;
    await expect
      .poll(async () => {
        const listed = await system.client.request<{ executions: Execution[] }>(
          '/executions?skill_id=stepper&status=running',
          { headers },
        );
        running = listed.body.executions[0];
        return running?.execution_id;
      })
      .toBeDefined();
    abort.abort();
    expect(await call).toBeInstanceOf(Error);
    await expect
      .poll(
        async () => (await system.client.status('stepper', String(running?.execution_id), headers)).status,
      )
      .toBe('canceled');
  });

  it('answers bad input in JSON-RPC, never a 500: version, envelope, headers, another caller’s task, not JSON, credentials', async () => {
    const unknownVersion = await mcpRequest(
      system.gateway.url,
      'tools/list',
      {},
      { headers, version: '1900-01-01' },
    );
    expect(unknownVersion.status).toBe(400);
    expect(errorOf(unknownVersion)).toMatchObject({
      code: -32022,
      data: { requested: '1900-01-01', supported: expect.arrayContaining(['2026-07-28', '2025-11-25']) },
    });

    const noMeta = await mcpRequest(system.gateway.url, 'tools/list', {}, { headers, bare: true });
    expect(noMeta.status).toBe(400);
    expect(errorOf(noMeta).code).toBe(-32602);

    const mismatch = await mcpRequest(
      system.gateway.url,
      'tools/call',
      { name: 'echo', arguments: { text: 'x' } },
      { headers: { ...headers, 'mcp-method': 'tools/list' } },
    );
    expect(mismatch.status).toBe(400);
    expect(errorOf(mismatch).code).toBe(-32020);
    const wrongName = await mcpRequest(
      system.gateway.url,
      'tools/call',
      { name: 'echo', arguments: { text: 'x' } },
      { headers: { ...headers, 'mcp-name': 'sleepy' } },
    );
    expect(errorOf(wrongName).code).toBe(-32020);

    // Another caller's task is answered as one nobody created.
    const capabilities = { extensions: { [TASKS_EXTENSION]: {} } };
    const mine = resultOf(
      await mcpRequest(
        system.gateway.url,
        'tools/call',
        { name: 'sleepy', arguments: { ms: 3000 } },
        { headers, capabilities },
      ),
    );
    const stranger = { 'x-api-key': await system.client.createKey('agent-stranger') };
    const theirs = await mcpRequest(
      other.url,
      'tasks/get',
      { taskId: String(mine.taskId) },
      { headers: stranger, capabilities },
    );
    const nobodys = await mcpRequest(
      other.url,
      'tasks/get',
      { taskId: 'no-such-task' },
      { headers: stranger, capabilities },
    );
    expect(errorOf(theirs).code).toBe(-32602);
    expect(errorOf(nobodys).code).toBe(-32602);
    expect(errorOf(theirs).message.replace(String(mine.taskId), 'ID')).toBe(
      errorOf(nobodys).message.replace('no-such-task', 'ID'),
    );
    expect(JSON.stringify(theirs.body)).not.toContain('sleepy');
    const cancelTheirs = await mcpRequest(
      other.url,
      'tasks/cancel',
      { taskId: String(mine.taskId) },
      { headers: stranger, capabilities },
    );
    expect(errorOf(cancelTheirs).code).toBe(-32602);

    // A body that is not JSON: Parse error, whichever era it meant.
    for (const extra of [{ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }, {}]) {
      const malformed = await fetch(`${system.gateway.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...extra,
        },
        body: '{"jsonrpc": "2.0", "id": 1, "method": ',
      });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    }

    const forged = await mcpRequest(
      system.gateway.url,
      'tools/list',
      {},
      { headers: { 'x-api-key': 'srk_not-a-key' } },
    );
    expect(forged.status).toBe(401);
    expect(errorOf(forged)).toMatchObject({ code: -32000, data: { error: { code: 'AUTH_REQUIRED' } } });
  });
});
