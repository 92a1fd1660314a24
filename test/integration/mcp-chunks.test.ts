import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, connectModernMcp } from '../support/agent-mcp';
import { mcpRequest } from '../support/mcp-json-rpc';
import { repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

type Json = Record<string, unknown>;

/** What a progress notification says. */
interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

const LINES = Array.from({ length: 20 }, (_, index) => `line ${index + 1}\n`);

/** The chunk reports among `seen` (the skill's own progress reports say "running, n%"). */
const chunkMessages = (seen: Progress[]) =>
  seen.map((each) => each.message).filter((message) => !/^\w+, [\d.]+%$/.test(message ?? ''));

/** Every report's progress above the one before: what the revision asks. */
function expectIncreasing(seen: Progress[]): void {
  for (const [index, { progress }] of seen.entries()) {
    if (index > 0) expect(progress).toBeGreaterThan(seen[index - 1]?.progress ?? Number.NaN);
  }
}

/**
 * Streamed output over MCP: a call with a progressToken gets each chunk the skill emits as a
 * notifications/progress on its own response stream (the chunk as `message`), in order, once each,
 * before the result, in both eras, from the SDK's own clients and from plain JSON-RPC.
 */
describe('MCP: the chunks a skill streams, as notifications/progress of the call (both eras)', () => {
  let system: TestSystem;
  let headers: Record<string, string>;
  const closing: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    system = await TestSystem.start({ MCP_CALL_WAIT_SECONDS: '20' });
    await system.addWorker({ SKILLS_DIR: `${repoRoot}test/fixtures/emit-skills` });
    headers = { 'x-api-key': await system.client.createKey('mcp-chunks') };
  });
  afterAll(async () => {
    await Promise.all(closing.map((close) => close().catch(() => {})));
    await system?.stop();
  });

  it('2025-11-25 (a session, the SDK 1.x client): 20 text chunks in order, each once, before the result', async () => {
    const mcp = await connectMcp(system.gateway.url, headers);
    closing.push(() => mcp.close());
    const seen: Progress[] = [];
    const result = await mcp.callTool(
      { name: 'emitter', arguments: { count: 20, pause_ms: 20, kind: 'text' } },
      CallToolResultSchema,
      { onprogress: (progress) => seen.push(progress) },
    );
    expect(result.structuredContent).toEqual({ emitted: 20 });
    // The SDK drops a call's notifications once its result came: these all came before it.
    expect(chunkMessages(seen)).toEqual(LINES);
    expectIncreasing(seen);
    expect(seen.every((each) => each.total === 100)).toBe(true);
  });

  it('2026-07-28 (stateless, the SDK 2.x client): JSON chunks as their JSON, interleaved with the progress', async () => {
    const mcp = await connectModernMcp(system.gateway.url, headers);
    closing.push(() => mcp.close());
    const seen: Progress[] = [];
    const result = await mcp.callTool(
      { name: 'emitter', arguments: { count: 20, pause_ms: 20, kind: 'object', progress: true } },
      { onprogress: (progress: Progress) => seen.push(progress) },
    );
    expect(result.structuredContent).toEqual({ emitted: 20 });
    expect(chunkMessages(seen)).toEqual(LINES.map((_, index) => JSON.stringify({ n: index + 1 })));
    expectIncreasing(seen);
    // The skill's own progress is told too, on the same scale.
    expect(seen.some((each) => /^running, \d+%$/.test(each.message ?? ''))).toBe(true);
    expect(seen.at(-1)?.progress).toBeLessThanOrEqual(100 + 1e-3);
  });

  it('2026-07-28 over plain JSON-RPC: the notifications come on the call’s SSE response, then its result last', async () => {
    const answer = await mcpRequest(
      system.gateway.url,
      'tools/call',
      {
        name: 'emitter',
        arguments: { count: 20, pause_ms: 10, kind: 'text' },
        _meta: { progressToken: 'chunks' },
      },
      { headers },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(answer.messages.at(-1)).toMatchObject({
      result: { resultType: 'complete', structuredContent: { emitted: 20 } },
    });
    const reports = answer.notifications.map((message) => {
      expect(message).toMatchObject({
        method: 'notifications/progress',
        params: { progressToken: 'chunks' },
      });
      return message.params as Progress;
    });
    expect(chunkMessages(reports)).toEqual(LINES);
    expectIncreasing(reports);
  });

  it('without a progressToken, the result alone', async () => {
    const answer = await mcpRequest(
      system.gateway.url,
      'tools/call',
      { name: 'emitter', arguments: { count: 5, kind: 'text' } },
      { headers },
    );
    expect(answer.notifications).toEqual([]);
    expect((answer.body.result as Json).structuredContent).toEqual({ emitted: 5 });
  });
});
