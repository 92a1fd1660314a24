import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm-server';
import type { StartedGateway } from '../support/service-process';
import { TestSystem } from '../support/system';

type Json = Record<string, unknown>;
interface Sent {
  result?: { task?: { id: string; status: { state: string }; metadata?: Json; artifacts?: Json[] } };
  error?: { code: number; message: string };
}

/**
 * A message of plain text that names no skill, which is what a generic A2A client sends: run by
 * A2A_DEFAULT_SKILL, or routed by a model (a real local HTTP server speaking OpenAI's chat
 * completions) to one of the caller's skills, or refused with how to name a skill.
 */
describe('A2A plain-text messages: a default skill, an LLM router, or how to name a skill', () => {
  let system: TestSystem;
  let llm: FakeLlm;
  let key: string;
  let unfit: StartedGateway;
  let routed: StartedGateway;
  let bare: StartedGateway;

  const say = async (baseUrl: string, text: string): Promise<Sent> => {
    const answer = await fetch(`${baseUrl}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } },
      }),
    });
    return (await answer.json()) as Sent;
  };

  const outputOf = (sent: Sent) =>
    (sent.result?.task?.artifacts?.[0]?.parts as Json[] | undefined)?.[0]?.data;

  beforeAll(async () => {
    llm = await startFakeLlm();
    system = await TestSystem.start({ A2A_DEFAULT_SKILL: 'echo' });
    await system.addWorker({ WORKER_SKILLS: 'echo,sleepy,thrower' });
    key = await system.client.createKey('plain-talker');
    [unfit, routed, bare] = await Promise.all([
      system.addGateway({ A2A_DEFAULT_SKILL: 'thrower' }),
      system.addGateway({ A2A_DEFAULT_SKILL: '', LLM_BASE_URL: llm.url, LLM_MODEL: 'fake-router' }),
      system.addGateway({ A2A_DEFAULT_SKILL: '' }),
    ]);
  });
  afterAll(async () => {
    await system?.stop();
    await llm?.close();
  });

  it('runs A2A_DEFAULT_SKILL with the text as its one required string, and says so in the metadata', async () => {
    const sent = await say(system.gateway.url, 'hello there');
    expect(sent.error).toBeUndefined();
    expect(sent.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(outputOf(sent)).toMatchObject({ text: 'hello there' });
    expect(sent.result?.task?.metadata).toMatchObject({
      skill_id: 'echo',
      routing: { by: 'default_skill', skill_id: 'echo', input: 'text' },
    });
    // GetTask shows the same routing.
    const got = await system.client.request<{ result: { metadata: Json } }>('/a2a', {
      json: { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: sent.result?.task?.id } },
      headers: { 'x-api-key': key },
    });
    expect(got.body.result.metadata).toMatchObject({ routing: { by: 'default_skill' } });
  });

  it('refuses plain text, saying why, when A2A_DEFAULT_SKILL names a skill that takes no text', async () => {
    const sent = await say(unfit.url, 'hello');
    expect(sent.error?.code).toBe(-32004);
    expect(sent.error?.message).toMatch(/A2A_DEFAULT_SKILL names "thrower".*one string/);
  });

  it("lets the model pick one of the caller's skills as a tool, runs it with the arguments it filled, and records the choice", async () => {
    llm.script({ toolCalls: [{ name: 'echo', arguments: { text: 'picked', mode: 'loud' } }] });
    const sent = await say(routed.url, 'Please say "picked", loudly');
    expect(sent.error).toBeUndefined();
    expect(outputOf(sent)).toMatchObject({ text: 'picked', count: 1 });
    expect(sent.result?.task?.metadata).toMatchObject({
      skill_id: 'echo',
      routing: {
        by: 'llm',
        skill_id: 'echo',
        model: 'fake-router',
        tool: 'echo',
        arguments: { text: 'picked', mode: 'loud' },
      },
    });
    const asked = llm.requests.at(-1)?.body;
    expect(asked?.model).toBe('fake-router');
    expect(asked?.tool_choice).toBe('required');
    expect(asked?.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Please say "picked", loudly',
    });
    // The caller's skills, as GET /tools defines them.
    const tools = await system.client.request<{ tools: Json[] }>('/tools?format=openai', {
      headers: { 'x-api-key': key },
    });
    expect(asked?.tools).toEqual(tools.body.tools);
  });

  it('says how to name a skill when the model picks none, and fails as our fault when the model cannot be asked', async () => {
    llm.script({ content: 'I do not know which tool to use.' });
    const none = await say(routed.url, 'something vague');
    expect(none.error?.code).toBe(-32602);
    expect(none.error?.message).toMatch(/chose no skill.*Name the skill/);
    llm.script({ status: 400, body: { error: { message: 'bad request', type: 'invalid_request_error' } } });
    const failed = await say(routed.url, 'anything');
    expect(failed.error?.code).toBe(-32603);
    expect(failed.error?.message).toMatch(/router's model could not be asked/);
  });

  it('says how to name a skill when neither a default skill nor an LLM is configured', async () => {
    const sent = await say(bare.url, 'hello');
    expect(sent.error?.code).toBe(-32602);
    expect(sent.error?.message).toMatch(/A2A_DEFAULT_SKILL.*Name the skill: metadata \{"skill_id"/);
  });
});
