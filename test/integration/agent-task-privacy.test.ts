import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/agent-mcp';
import { TestSystem } from '../support/system';

type Json = Record<string, unknown>;

/** What a request answered, with the task id it asked about in place of `<task>`: comparable across ids. */
function withoutId(answer: unknown, taskId: string): unknown {
  return JSON.parse(JSON.stringify(answer).replaceAll(taskId, '<task>'));
}

/**
 * Another caller's task and a task that does not exist must be answered alike over every agent
 * protocol, naming nothing of the first (its skill): otherwise a guessed id tells whether it exists.
 */
describe('a task of another caller is answered as one that does not exist (MCP and A2A, D4)', () => {
  let system: TestSystem;
  /** An execution of echo by caller alice: her task, in both protocols. */
  let taskId: string;
  let bobKey: string;

  /** What `ask` answers about alice's task and about an id nobody used, each without the id it asked. */
  async function answersFor(ask: (id: string) => Promise<unknown>) {
    const unknown = crypto.randomUUID();
    return {
      theirs: withoutId(await ask(taskId), taskId),
      none: withoutId(await ask(unknown), unknown),
    };
  }

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ WORKER_SKILLS: 'echo' });
    const aliceKey = await system.client.createKey('agent-alice');
    bobKey = await system.client.createKey('agent-bob');
    taskId = await system.client.invokeAs('agent-alice', 'echo', { text: 'hers' }, { 'x-api-key': aliceKey });
    const { final } = await system.client.waitForEnd('echo', taskId, 20_000, { 'x-api-key': aliceKey });
    expect(final.status).toBe('completed');
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('MCP tasks/get, tasks/result and tasks/cancel (the SDK client)', async () => {
    const bob = await connectMcp(system.gateway.url, { 'x-api-key': bobKey });
    try {
      const refusal = (call: Promise<unknown>) =>
        call.then(
          () => 'answered',
          (error: { code?: unknown; message?: unknown; data?: unknown }) => ({
            code: error.code,
            message: error.message,
            data: error.data,
          }),
        );
      const asks = {
        get: (id: string) => refusal(bob.experimental.tasks.getTask(id)),
        result: (id: string) => refusal(bob.experimental.tasks.getTaskResult(id, CallToolResultSchema)),
        cancel: (id: string) => refusal(bob.experimental.tasks.cancelTask(id)),
      };
      for (const [method, ask] of Object.entries(asks)) {
        const { theirs, none } = await answersFor(ask);
        expect(theirs, `tasks/${method}`).toEqual(none);
        expect(theirs, `tasks/${method}`).toMatchObject({ data: { error: { code: 'EXECUTION_NOT_FOUND' } } });
        expect(JSON.stringify(theirs), `tasks/${method}`).not.toContain('echo');
      }
    } finally {
      await bob.close();
    }
  });

  it('A2A over JSON-RPC: GetTask, CancelTask, SubscribeToTask and the v0.3 names', async () => {
    const rpc = (version: string, method: string) => async (id: string) => {
      const response = await fetch(`${system.gateway.url}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': bobKey, 'a2a-version': version },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { id } }),
      });
      return { status: response.status, body: await response.text() };
    };
    const asks = [
      rpc('1.0', 'GetTask'),
      rpc('1.0', 'CancelTask'),
      rpc('1.0', 'SubscribeToTask'),
      rpc('0.3', 'tasks/get'),
      rpc('0.3', 'tasks/cancel'),
      rpc('0.3', 'tasks/resubscribe'),
    ];
    for (const ask of asks) {
      const { theirs, none } = await answersFor(ask);
      expect(theirs).toEqual(none);
      expect(JSON.stringify(theirs)).not.toContain('echo');
    }
  });

  it('A2A over HTTP+JSON: GET tasks/{id}, POST tasks/{id}:cancel, GET tasks/{id}:subscribe', async () => {
    const rest = (method: string, suffix: string) => async (id: string) => {
      const response = await fetch(`${system.gateway.url}/a2a/rest/tasks/${id}${suffix}`, {
        method,
        headers: { 'x-api-key': bobKey, 'a2a-version': '1.0' },
      });
      return { status: response.status, body: (await response.json().catch(() => null)) as Json | null };
    };
    for (const ask of [rest('GET', ''), rest('POST', ':cancel'), rest('GET', ':subscribe')]) {
      const { theirs, none } = await answersFor(ask);
      expect(theirs).toEqual(none);
      expect(theirs).toMatchObject({ status: 404 });
      expect(JSON.stringify(theirs)).not.toContain('echo');
    }
  });
});
