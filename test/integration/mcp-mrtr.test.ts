import type { ElicitRequestFormParams } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectModernMcp } from '../support/agent-mcp';
import { mcpRequest, type RpcAnswer, TASKS_EXTENSION } from '../support/mcp-json-rpc';
import { repoRoot, type StartedGateway } from '../support/service-process';
import { TestSystem } from '../support/system';

type Json = Record<string, unknown>;

const SKILLS_DIR = `${repoRoot}test/fixtures/task-skills`;
const FORMS = { elicitation: { form: {} } };

const resultOf = (answer: RpcAnswer) => answer.body.result as Json;
const errorOf = (answer: RpcAnswer) => answer.body.error as { code: number; message: string; data?: Json };

/**
 * Task skills over MCP revision 2026-07-28's multi-round-trip requests: a client that takes form
 * elicitation is asked for the task's output, and hands the task in by retrying with the answer.
 * The SDK's 2.x client end to end (it fulfils the form with its elicitation handler and retries by
 * itself), plain JSON-RPC for each round on its own and for what a conforming client never sends.
 */
describe('MCP 2026-07-28: a task skill handed in by multi-round-trip (input_required)', () => {
  let system: TestSystem;
  let other: StartedGateway;
  const as: Record<string, Record<string, string>> = {};
  const closing: (() => Promise<void>)[] = [];

  /** tools/call of review_request by `who`, answered input_required: its form, state and task. */
  async function asked(who: string, document: string, baseUrl = system.gateway.url) {
    const answer = await mcpRequest(
      baseUrl,
      'tools/call',
      { name: 'review_request', arguments: { document } },
      { headers: as[who], capabilities: FORMS },
    );
    const result = resultOf(answer);
    expect(result, JSON.stringify(answer.body)).toMatchObject({ resultType: 'input_required' });
    const form = (result.inputRequests as Record<string, { method: string; params: ElicitRequestFormParams }>)
      .output;
    const executionId = String(/Task (\S+) /.exec(form?.params.message ?? '')?.[1]);
    return { form, requestState: String(result.requestState), executionId };
  }

  /** The retry of review_request with the form's answer and the state the first answer gave. */
  const retry = (who: string, requestState: string, inputResponses?: Json, baseUrl = system.gateway.url) =>
    mcpRequest(
      baseUrl,
      'tools/call',
      {
        name: 'review_request',
        arguments: { document: 'ignored on retry' },
        requestState,
        ...(inputResponses === undefined ? {} : { inputResponses }),
      },
      { headers: as[who], capabilities: FORMS },
    );

  const status = (skill: string, id: string) => system.client.status(skill, id, as.reviewer);

  beforeAll(async () => {
    // The wait bounds how long a call waits for its task to open (at once, unless the machine is loaded).
    system = await TestSystem.start({ SKILLS_DIR, MCP_CALL_WAIT_SECONDS: '5' });
    other = await system.addGateway();
    await system.addWorker({ SKILLS_DIR, WORKER_CONCURRENCY: '4' });
    for (const caller of ['reviewer', 'lead', 'stranger'])
      as[caller] = { 'x-api-key': await system.client.createKey(caller) };
  });
  afterAll(async () => {
    await Promise.all(closing.map((close) => close().catch(() => {})));
    await system?.stop();
  });

  it("the SDK's 2.x client hands a task in through its elicitation handler: the call completes with the output", async () => {
    const asks: ElicitRequestFormParams[] = [];
    const client = await connectModernMcp(system.gateway.url, as.reviewer, {
      capabilities: FORMS,
      prepare: (prepared) =>
        prepared.setRequestHandler('elicitation/create', async (request) => {
          asks.push(request.params as ElicitRequestFormParams);
          return { action: 'accept', content: { approved: true, note: 'reads well' } };
        }),
    });
    closing.push(() => client.close());

    const result = await client.callTool({ name: 'review_request', arguments: { document: 'the plan' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ approved: true, note: 'reads well' });
    // The form is the skill's output schema, its message the task's instructions and inputs.
    expect(asks).toHaveLength(1);
    expect(asks[0]).toMatchObject({
      mode: 'form',
      message: expect.stringContaining('Read the document, then approve it or not.'),
      requestedSchema: {
        type: 'object',
        properties: { approved: { type: 'boolean' }, note: { type: 'string', maxLength: 200 } },
        required: ['approved'],
      },
    });
    expect(asks[0]?.message).toContain('"document":"the plan"');
    expect(asks[0]?.requestedSchema).not.toHaveProperty('additionalProperties');
    // Handed in as POST /tasks/{id}/complete hands it in: the execution completed with the output.
    const executionId = String(/Task (\S+) /.exec(asks[0]?.message ?? '')?.[1]);
    expect(await status('review_request', executionId)).toMatchObject({
      status: 'completed',
      output: { approved: true, note: 'reads well' },
    });
  });

  it('asks on one gateway and takes the answer on another; an output that breaks the schema is -32602 and the task stays open', async () => {
    const { form, requestState, executionId } = await asked('reviewer', 'the budget');
    expect(form).toMatchObject({ method: 'elicitation/create', params: { mode: 'form' } });
    expect((await status('review_request', executionId)).task?.state).toBe('open');

    const bad = await retry(
      'reviewer',
      requestState,
      { output: { action: 'accept', content: { approved: 'yes' } } },
      other.url,
    );
    expect(errorOf(bad), JSON.stringify(bad.body)).toMatchObject({
      code: -32602,
      data: {
        error: { code: 'INVALID_INPUT', details: [expect.objectContaining({ path: '/output/approved' })] },
      },
    });
    expect((await status('review_request', executionId)).task?.state).toBe('open');

    const good = await retry(
      'reviewer',
      requestState,
      { output: { action: 'accept', content: { approved: false } } },
      other.url,
    );
    expect(resultOf(good)).toMatchObject({ resultType: 'complete', structuredContent: { approved: false } });
    expect(await status('review_request', executionId)).toMatchObject({
      status: 'completed',
      output: { approved: false },
    });

    // The same retry again answers the ended execution's result: nothing is handed in twice.
    const again = await retry('reviewer', requestState, {
      output: { action: 'accept', content: { approved: true } },
    });
    expect(resultOf(again)).toMatchObject({ resultType: 'complete', structuredContent: { approved: false } });
  });

  it("refuses another caller's requestState exactly as a forged one, and one shown to another tool", async () => {
    const { requestState, executionId } = await asked('reviewer', 'the secret plan');
    const answer = { output: { action: 'accept', content: { approved: true } } };
    // The lead may take the task, the stranger may not: to both the reviewer's state is no state.
    const lead = await retry('lead', requestState, answer);
    const stranger = await retry('stranger', requestState, answer, other.url);
    const forged = await retry('reviewer', `${requestState.slice(0, -4)}AAAA`, answer);
    const garbage = await retry('stranger', 'not-a-state', answer);
    for (const refused of [lead, stranger, forged, garbage]) {
      expect(refused.status).toBeLessThan(500);
      expect(errorOf(refused), JSON.stringify(refused.body)).toEqual({
        code: -32602,
        message: 'Invalid or expired requestState',
        data: { reason: 'invalid_request_state' },
      });
      expect(JSON.stringify(refused.body)).not.toContain(executionId);
    }
    const elsewhere = await mcpRequest(
      system.gateway.url,
      'tools/call',
      { name: 'quick_task', arguments: {}, requestState, inputResponses: answer },
      { headers: as.reviewer, capabilities: FORMS },
    );
    expect(errorOf(elsewhere)).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });

    // Nothing was handed in: the task is still open, and its caller hands it in.
    expect((await status('review_request', executionId)).task?.state).toBe('open');
    const mine = await retry('reviewer', requestState, answer);
    expect(resultOf(mine)).toMatchObject({ resultType: 'complete', structuredContent: { approved: true } });
  });

  it('asks again for a retry without the answer, refuses one that is not an elicitation result, keeps a dismissed task open and ends a declined one', async () => {
    const { requestState, executionId } = await asked('reviewer', 'the draft');
    const missing = await retry('reviewer', requestState);
    expect(resultOf(missing)).toMatchObject({
      resultType: 'input_required',
      inputRequests: { output: { method: 'elicitation/create' } },
      requestState: expect.any(String),
    });
    const malformed = await retry('reviewer', requestState, { output: 'yes' });
    expect(errorOf(malformed)).toMatchObject({ code: -32602 });

    // Dismissed: the call is still running, as any call past the bound is (here: a task handle).
    const dismissed = await mcpRequest(
      system.gateway.url,
      'tools/call',
      {
        name: 'review_request',
        arguments: {},
        requestState,
        inputResponses: { output: { action: 'cancel' } },
      },
      { headers: as.reviewer, capabilities: { ...FORMS, extensions: { [TASKS_EXTENSION]: {} } } },
    );
    expect(resultOf(dismissed)).toMatchObject({ resultType: 'task', taskId: executionId, status: 'working' });
    expect((await status('review_request', executionId)).task?.state).toBe('open');

    const declined = await retry('reviewer', requestState, { output: { action: 'decline' } }, other.url);
    expect(resultOf(declined)).toMatchObject({ resultType: 'complete', isError: true });
    const final = await status('review_request', executionId);
    expect([final.status, final.error?.code]).toEqual(['failed', 'TASK_DECLINED']);
    expect(final.error?.message).toContain('declined at the MCP client');
  });

  it('answers a task that ended meanwhile (handed in another way, canceled) with its result, never a stuck call', async () => {
    const answer = { output: { action: 'accept', content: { approved: true } } };
    const handedIn = await asked('reviewer', 'the memo');
    const byLead = await system.client.request(`/tasks/${handedIn.executionId}/complete`, {
      method: 'POST',
      headers: as.lead,
      json: { output: { approved: false, note: 'not yet' } },
    });
    expect(byLead.status).toBe(200);
    const late = await retry('reviewer', handedIn.requestState, answer, other.url);
    expect(resultOf(late)).toMatchObject({
      resultType: 'complete',
      structuredContent: { approved: false, note: 'not yet' },
    });

    const canceled = await asked('reviewer', 'the old memo');
    expect((await system.client.cancel('review_request', canceled.executionId, as.reviewer)).status).toBe(
      200,
    );
    const after = await retry('reviewer', canceled.requestState, answer);
    expect(resultOf(after)).toMatchObject({ resultType: 'complete', isError: true });
    expect((resultOf(after).content as { text: string }[])[0]?.text).toContain('EXECUTION_CANCELED');
    expect((await status('review_request', canceled.executionId)).status).toBe('canceled');
  });

  it('falls back to the task as today: a client without forms, a caller who may not take it, an output no form can ask for', async () => {
    const capabilities = { extensions: { [TASKS_EXTENSION]: {} } };
    const call = (who: string, name: string, args: Json, caps: Json) =>
      mcpRequest(
        system.gateway.url,
        'tools/call',
        { name, arguments: args },
        { headers: as[who], capabilities: caps },
      );
    const [noForms, notAssignee, nested] = await Promise.all([
      call('reviewer', 'review_request', { document: 'a' }, capabilities),
      call('stranger', 'review_request', { document: 'b' }, { ...capabilities, ...FORMS }),
      call('reviewer', 'itemized_task', {}, { ...capabilities, ...FORMS }),
    ]);
    for (const handle of [noForms, notAssignee, nested]) {
      expect(resultOf(handle), JSON.stringify(handle.body)).toMatchObject({
        resultType: 'task',
        status: 'working',
      });
    }
    // Without the tasks extension either: where its result will be, as a call past the bound says.
    const plain = await call('reviewer', 'review_request', { document: 'c' }, {});
    expect(resultOf(plain)).toMatchObject({ resultType: 'complete', isError: true });
    expect((resultOf(plain).content as { text: string }[])[0]?.text).toContain('result_url');
    // Each task is open, to be handed in its other ways (read by its caller).
    for (const [skill, who, handle] of [
      ['review_request', 'reviewer', noForms],
      ['review_request', 'stranger', notAssignee],
      ['itemized_task', 'reviewer', nested],
    ] as const) {
      const id = String(resultOf(handle).taskId);
      await expect
        .poll(async () => (await system.client.status(skill, id, as[who])).task?.state)
        .toBe('open');
    }
  });
});
