import type { ElicitRequestFormParams } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectModernMcp } from '../support/agent-mcp';
import { mcpRequest, type RpcAnswer } from '../support/mcp-json-rpc';
import { repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

type Json = Record<string, unknown>;

const SKILLS_DIR = `${repoRoot}test/fixtures/approval-skills`;
const FORMS = { elicitation: { form: {} } };

const resultOf = (answer: RpcAnswer) => answer.body.result as Json;

/**
 * Approvals over the agent protocols: an MCP client whose caller may approve is asked by
 * multi-round-trip (input_required, an approve-or-reject form) on the waiting tool call; an A2A
 * task awaiting its approval is `input-required`, and an approver's message to it decides it.
 */
describe('approvals over MCP and A2A', () => {
  let system: TestSystem;
  const as: Record<string, Record<string, string>> = {};
  const closing: (() => Promise<void>)[] = [];

  const call = (who: string, args: Json, extra: Json = {}) =>
    mcpRequest(
      system.gateway.url,
      'tools/call',
      { name: 'transfer', arguments: args, ...extra },
      { headers: as[who], capabilities: FORMS },
    );

  const a2a = async (who: string, method: string, params: Json) => {
    const answer = await system.client.request<{ result?: Json & { task?: Json }; error?: Json }>('/a2a', {
      json: { jsonrpc: '2.0', id: method, method, params },
      headers: { 'a2a-version': '1.0', ...as[who] },
    });
    return answer.body;
  };

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR, MCP_CALL_WAIT_SECONDS: '5', A2A_SEND_WAIT_SECONDS: '5' });
    await system.addWorker({ SKILLS_DIR });
    for (const caller of ['approver', 'lead', 'agent'])
      as[caller] = { 'x-api-key': await system.client.createKey(caller) };
  });
  afterAll(async () => {
    await Promise.all(closing.map((close) => close().catch(() => {})));
    await system?.stop();
  });

  it("asks an approver at an MCP client by input_required, and the SDK's client approves: the call completes", async () => {
    const asks: ElicitRequestFormParams[] = [];
    const client = await connectModernMcp(system.gateway.url, as.approver, {
      capabilities: FORMS,
      prepare: (prepared) =>
        prepared.setRequestHandler('elicitation/create', async (request) => {
          asks.push(request.params as ElicitRequestFormParams);
          return { action: 'accept', content: { decision: 'approve', reason: 'known payee' } };
        }),
    });
    closing.push(() => client.close());
    const result = await client.callTool({ name: 'transfer', arguments: { amount: 2500, to: 'ivy' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ sent: 2500, to: 'ivy' });
    expect(asks).toHaveLength(1);
    expect(asks[0]).toMatchObject({
      mode: 'form',
      requestedSchema: { properties: { decision: { enum: ['approve', 'reject'] } }, required: ['decision'] },
    });
    expect(asks[0]?.message).toContain('"amount":2500');
    expect(asks[0]?.message).toContain('amount > 1000');
    // A call the rule does not match is not asked.
    const small = await client.callTool({ name: 'transfer', arguments: { amount: 5, to: 'ivy' } });
    expect(small.structuredContent).toEqual({ sent: 5, to: 'ivy' });
    expect(asks).toHaveLength(1);
  });

  it('rejects by the retry of a plain JSON-RPC call; the same retry again changes nothing', async () => {
    const first = await call('approver', { amount: 4000, to: 'jon' });
    const asked = resultOf(first);
    expect(asked, JSON.stringify(first.body)).toMatchObject({ resultType: 'input_required' });
    const requestState = String(asked.requestState);
    const inputResponses = { decision: { action: 'accept', content: { decision: 'reject', reason: 'no' } } };
    const rejected = await call('approver', { amount: 0, to: 'ignored' }, { requestState, inputResponses });
    expect(resultOf(rejected), JSON.stringify(rejected.body)).toMatchObject({ isError: true });
    expect(JSON.stringify(resultOf(rejected))).toContain('APPROVAL_REJECTED');
    const again = await call('approver', { amount: 0, to: 'ignored' }, { requestState, inputResponses });
    expect(JSON.stringify(again.body)).toContain('APPROVAL_REJECTED');
  });

  it('does not ask a caller who may not approve: the call goes on, waiting', async () => {
    const answer = await call('agent', { amount: 6000, to: 'kim' });
    const result = resultOf(answer);
    expect(result.resultType).not.toBe('input_required');
    const [content] = result.content as { text: string }[];
    const id = String((JSON.parse(content?.text ?? '{}') as Json).execution_id);
    const execution = await system.client.status('transfer', id, as.agent);
    expect(execution.status).toBe('awaiting_approval');
    await system.client.request(`/approvals/${id}/reject`, { method: 'POST', headers: as.lead });
  });

  it('shows an A2A task awaiting its approval as input-required, and an approver decides it by a message', async () => {
    const sent = await a2a('agent', 'SendMessage', {
      message: {
        messageId: crypto.randomUUID(),
        role: 'ROLE_USER',
        parts: [{ data: { amount: 3000, to: 'lou' }, mediaType: 'application/json' }],
        metadata: { skill_id: 'transfer' },
      },
    });
    const task = sent.result?.task as { id: string; status: { state: string } };
    expect(task.status.state, JSON.stringify(sent)).toBe('TASK_STATE_INPUT_REQUIRED');

    const decide = (who: string, decision: string) =>
      a2a(who, 'SendMessage', {
        message: {
          messageId: crypto.randomUUID(),
          role: 'ROLE_USER',
          taskId: task.id,
          parts: [{ data: { decision, reason: 'checked' }, mediaType: 'application/json' }],
        },
      });
    // The invoker is no approver: its message decides nothing.
    expect((await decide('agent', 'approve')).error).toBeDefined();
    const both = await Promise.all([decide('lead', 'approve'), decide('approver', 'reject')]);
    const won = both.filter((answer) => answer.error === undefined);
    expect(won).toHaveLength(1);
    expect(JSON.stringify(both.find((answer) => answer.error !== undefined))).toContain('APPROVAL_DECIDED');
    const { final } = await system.client.waitForEnd('transfer', task.id, 20_000, as.agent);
    expect(final.approval).toMatchObject({ via: 'a2a' });
    expect(final.status).toBe(final.approval?.decided_by === 'lead' ? 'completed' : 'failed');
    const got = await a2a('agent', 'GetTask', { id: task.id });
    expect((got.result as { status: { state: string } }).status.state).toBe(
      final.status === 'completed' ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_FAILED',
    );
  });
});
