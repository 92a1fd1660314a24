import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm-server';
import { repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

const llmSkills = fileURLToPath(new URL('../fixtures/llm-skills', import.meta.url));
const SKILLS_DIR = [join(repoRoot, 'skills'), llmSkills].join(delimiter);
const API_KEY = 'sk-test-4f9c2a7e1d';

describe('llm skills against an OpenAI-compatible provider (a local fake)', () => {
  let system: TestSystem;
  let llm: FakeLlm;

  beforeAll(async () => {
    llm = await startFakeLlm();
    system = await TestSystem.start({ SKILLS_DIR });
    await system.addWorker({
      LLM_BASE_URL: llm.url,
      LLM_API_KEY: API_KEY,
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '2',
    });
  });
  afterAll(async () => {
    await system?.stop();
    await llm?.close();
  });
  beforeEach(() => {
    llm.requests.length = 0;
  });

  it('sends prompt.md and the input, constrains the answer by the output schema, records usage', async () => {
    llm.script({
      json: { summary: 'A fox jumps.', words: 4 },
      usage: { prompt_tokens: 42, completion_tokens: 7 },
    });
    const { final } = await system.client.run('tiny_summary', { text: 'The quick fox jumps.' });
    expect(final.status).toBe('completed');
    expect(final.output).toEqual({ summary: 'A fox jumps.', words: 4 });
    expect(final.usage).toEqual({
      prompt_tokens: 42,
      completion_tokens: 7,
      total_tokens: 49,
      requests: 1,
      models: ['fake-model'],
    });
    const [request] = llm.requests;
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.body.model).toBe('fake-model');
    expect(request?.body.messages[0]?.role).toBe('system');
    expect(request?.body.messages[0]?.content).toContain('Summarise the text in one sentence');
    expect(request?.body.messages[1]?.content).toContain('The quick fox jumps.');
    expect(request?.body.response_format?.type).toBe('json_schema');
    expect(request?.body.response_format?.json_schema?.schema).toMatchObject({
      required: ['summary', 'words'],
    });
    const ready = system.workers[0]?.logs.find((line) => line.msg === 'worker ready');
    const metrics = await (await fetch(`http://127.0.0.1:${ready?.metrics_port}/metrics`)).text();
    const tokens = (kind: string) =>
      `skillrun_llm_tokens_total{skill="tiny_summary",model="fake-model",kind="${kind}"}`;
    expect(metrics).toContain(`${tokens('prompt')} 42`);
    expect(metrics).toContain(`${tokens('completion')} 7`);
  });

  it('repairs an answer that is not JSON once, with the problem sent back', async () => {
    llm.script({ content: 'Sure! Here it is: {summary' }, { json: { summary: 'Fixed.', words: 1 } });
    const { final } = await system.client.run('tiny_summary', { text: 'x' });
    expect(final.status).toBe('completed');
    expect(final.output).toEqual({ summary: 'Fixed.', words: 1 });
    expect(llm.requests).toHaveLength(2);
    expect(final.usage?.requests).toBe(2);
    expect(JSON.stringify(llm.requests[1]?.body.messages.at(-1))).toMatch(/not valid JSON|JSON/);
  });

  it('fails with INVALID_OUTPUT after a schema mismatch twice, without retrying the attempt', async () => {
    llm.script({ json: { summary: 1 } }, { json: { words: 'many' } });
    const { final } = await system.client.run('tiny_summary', { text: 'x' });
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('INVALID_OUTPUT');
    expect(final.error?.message).toMatch(/repair/);
    expect(llm.requests).toHaveLength(2);
    expect(final.attempts).toBe(1);
    expect(final.usage?.requests).toBe(2);
  });

  it('waits as a 429 Retry-After says, then succeeds', async () => {
    llm.script({ status: 429, retryAfter: 1 }, { json: { summary: 'Later.', words: 1 } });
    const { final } = await system.client.run('tiny_summary', { text: 'x' });
    expect(final.status).toBe('completed');
    expect(llm.requests).toHaveLength(2);
    const [first, second] = llm.requests;
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it('fails a refusal at once: LLM_REFUSED, one request, no retry', async () => {
    llm.script({ refusal: 'I cannot help with that.' });
    const { final } = await system.client.run('tiny_summary', { text: 'x' });
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('LLM_REFUSED');
    expect(llm.requests).toHaveLength(1);
    expect(final.attempts).toBe(1);
  });

  it('times out a slow answer and aborts the HTTP call to the provider', async () => {
    const abortedBefore = llm.aborted;
    llm.script({ json: { summary: 'too late', words: 2 }, delayMs: 8000 });
    const { final } = await system.client.run(
      'tiny_summary',
      { text: 'x' },
      { context: { timeout_ms: 700 } },
    );
    expect(final.status).toBe('timeout');
    expect(final.error?.code).toBe('EXECUTION_TIMEOUT');
    await expect.poll(() => llm.aborted, { timeout: 5000 }).toBeGreaterThan(abortedBefore);
  });

  it("uses a skill's llm.json over the worker's settings", async () => {
    llm.script({ json: { answer: 'forty-two' } });
    const { final } = await system.client.run('special_model', { question: 'what?' });
    expect(final.status).toBe('completed');
    const [request] = llm.requests;
    expect(request?.body.model).toBe('special-model');
    expect(request?.body.response_format).toEqual({ type: 'json_object' });
    expect(request?.body.temperature).toBe(0.2);
    expect(request?.body.max_tokens).toBe(200);
    expect(final.usage?.models).toEqual(['special-model']);
  });

  it("runs the spec's research_and_summarize: memory_search then summarize, tokens on the parent", async () => {
    const caller = { caller: { id: 'researcher', type: 'user' } };
    for (const content of ['Redis keeps the queue in memory.', 'BullMQ runs on Redis streams and lists.']) {
      const { final } = await system.client.run('memory_store', { text: content }, caller);
      expect(final.status).toBe('completed');
    }
    llm.script({
      json: { summary: 'Redis backs the queue.' },
      usage: { prompt_tokens: 30, completion_tokens: 6 },
    });
    const { final } = await system.client.run('research_and_summarize', { topic: 'Redis' }, caller);
    expect(final.status).toBe('completed');
    const output = final.output as { summary: string; sources: { snippet: string }[] };
    expect(output.summary).toBe('Redis backs the queue.');
    expect(output.sources.map((source) => source.snippet)).toEqual(
      expect.arrayContaining(['Redis keeps the queue in memory.']),
    );
    expect(JSON.stringify(llm.requests[0]?.body.messages)).toContain('Redis keeps the queue in memory.');
    expect(final.steps?.map((step) => [step.step, step.skill_id, step.status])).toEqual([
      ['search', 'memory_search', 'completed'],
      ['summarize', 'summarize', 'completed'],
    ]);
    expect(final.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 6, models: ['fake-model'] });
  });

  it("ships spec 003's code_review and systematic_debugging, each prompt with its method", async () => {
    llm.script(
      { json: { issues: [], verdict: 'pass', summary: 'Clean.' } },
      {
        json: {
          rootCause: 'An off-by-one in the loop bound.',
          fix: { file: 'sum.ts', change: 'i < n', explanation: 'the last index is n - 1' },
          verification: 'Run the sum tests.',
        },
      },
    );
    const review = await system.client.run('code_review', { code: 'const a = 1;', language: 'typescript' });
    expect(review.final.status).toBe('completed');
    expect(review.final.output).toMatchObject({ verdict: 'pass' });
    const debug = await system.client.run('systematic_debugging', { error: 'RangeError at sum.ts:3' });
    expect(debug.final.status).toBe('completed');
    expect(debug.final.output).toMatchObject({ rootCause: 'An off-by-one in the loop bound.' });
    const [reviewPrompt, debugPrompt] = llm.requests.map(
      (request) => request.body.messages[0]?.content ?? '',
    );
    expect(reviewPrompt).toMatch(/security/i);
    expect(debugPrompt).toMatch(/root cause/i);
  });

  it('never lets the API key out: not in logs, records or errors', async () => {
    llm.script({ status: 401, body: { error: { message: `bad key ${API_KEY}` } } });
    const { final } = await system.client.run('special_model', { question: 'key?' });
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('TOOL_NOT_AVAILABLE');
    expect(JSON.stringify(final)).not.toContain(API_KEY);
    const [worker] = system.workers;
    expect(JSON.stringify(worker?.logs)).not.toContain(API_KEY);
    expect(worker?.stderr).not.toContain(API_KEY);
  });
});

describe('llm skills on a worker with no provider configured', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR });
    await system.addWorker({ WORKER_SKILLS: 'tiny_summary,summarize', LLM_MODEL: 'fake-model' });
  });
  afterAll(() => system?.stop());

  it('starts, and fails an llm execution at once with TOOL_NOT_AVAILABLE naming the missing setting', async () => {
    const { final } = await system.client.run('tiny_summary', { text: 'x' });
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('TOOL_NOT_AVAILABLE');
    expect(final.error?.message).toMatch(/LLM_BASE_URL/);
    expect(final.error?.message).not.toMatch(/LLM_MODEL/);
    // tiny_summary has retry 1, but a missing setting is not worth a second attempt.
    expect(final.attempts).toBe(1);
  });
});
