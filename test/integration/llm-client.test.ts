import { setTimeout as sleep } from 'node:timers/promises';
import { SkillError, SkillSchemas } from '@skillrun/core';
import { LlmClient, type LlmRequest, type LlmUsage, type ResolvedLlmSettings } from '@skillrun/worker';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm-server';

const KEY = 'sk-test-secret-0123456789';
const PROMPT = 'You summarise texts.';
const outputSchema = {
  type: 'object',
  properties: { summary: { type: 'string' }, key_points: { type: 'array', items: { type: 'string' } } },
  required: ['summary'],
  additionalProperties: false,
};
const schemas = new SkillSchemas();

describe('LlmClient against an OpenAI-compatible server', () => {
  let llm: FakeLlm;
  let usage: LlmUsage[];

  beforeEach(async () => {
    llm = await startFakeLlm();
    usage = [];
  });
  afterEach(() => llm.close());

  function settings(overrides: Partial<ResolvedLlmSettings> = {}): ResolvedLlmSettings {
    return {
      baseUrl: llm.url,
      apiKey: KEY,
      apiKeySource: 'LLM_API_KEY',
      model: 'fake-model',
      structuredOutput: 'json_schema',
      maxRetries: 2,
      ...overrides,
    };
  }

  function complete(
    overrides: Partial<ResolvedLlmSettings> = {},
    signal = new AbortController().signal,
    onDelta?: (text: string) => void,
  ) {
    const request: LlmRequest = {
      ...(onDelta ? { onDelta } : {}),
      skillId: 'text/summarize@1.0.0',
      settings: settings(overrides),
      systemPrompt: PROMPT,
      input: { text: 'A long text.' },
      outputSchema,
      validate: (output) => schemas.validate(outputSchema, output),
      signal,
      onUsage: (reported) => usage.push(reported),
    };
    return new LlmClient().complete(request);
  }

  /** The SkillError a call ends with, checked never to show the API key. */
  async function failure(call: Promise<unknown>): Promise<SkillError> {
    const error = await call.then(
      () => {
        throw new Error('expected the call to fail');
      },
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(SkillError);
    const skillError = error as SkillError;
    expect(JSON.stringify(skillError.toBody())).not.toContain(KEY);
    return skillError;
  }

  const bodyOf = (index: number) => llm.requests[index]?.body;
  const lastMessageOf = (index: number) => bodyOf(index)?.messages.at(-1)?.content ?? '';

  describe('streamed (stream: true, server-sent events)', () => {
    it('hands each piece of text over as it comes, then answers the whole, with its usage', async () => {
      llm.script({
        json: { summary: 'Short.' },
        deltas: ['{"summ', 'ary": ', '"Short."}'],
        usage: { prompt_tokens: 9, completion_tokens: 3 },
      });
      const pieces: string[] = [];
      expect(await complete({}, undefined, (text) => pieces.push(text))).toEqual({ summary: 'Short.' });
      expect(pieces).toEqual(['{"summ', 'ary": ', '"Short."}']);
      expect(usage).toEqual([{ model: 'fake-model', prompt_tokens: 9, completion_tokens: 3 }]);
      expect(bodyOf(0)).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    });

    it("streams a repair round's answer after the first, and tells a streamed refusal as LLM_REFUSED", async () => {
      llm.script({ content: 'not json' }, { json: { summary: 'Fixed.' } });
      const pieces: string[] = [];
      expect(await complete({}, undefined, (text) => pieces.push(text))).toEqual({ summary: 'Fixed.' });
      expect(pieces.join('')).toBe('not json{"summary":"Fixed."}');
      llm.script({ refusal: 'I cannot help with that.' });
      const refused = await failure(complete({}, undefined, () => {}));
      expect(refused.code).toBe('LLM_REFUSED');
    });
  });

  it('returns a valid JSON answer, having sent the prompt, the schema and the input', async () => {
    llm.script({ json: { summary: 'Short.' } });
    await expect(complete()).resolves.toEqual({ summary: 'Short.' });

    expect(llm.requests).toHaveLength(1);
    const [system, user] = bodyOf(0)?.messages ?? [];
    expect(system?.role).toBe('system');
    expect(system?.content).toContain(PROMPT);
    expect(system?.content).toContain(JSON.stringify(outputSchema));
    expect(user).toEqual({ role: 'user', content: JSON.stringify({ text: 'A long text.' }) });
  });

  it('accepts an answer wrapped in a ```json fence', async () => {
    llm.script({ content: '```json\n{"summary": "Fenced."}\n```' });
    await expect(complete()).resolves.toEqual({ summary: 'Fenced.' });
    expect(llm.requests).toHaveLength(1);
  });

  it('repairs an answer that is not JSON, telling the model the parse problem', async () => {
    llm.script({ content: 'Sure! Here is your summary.' }, { json: { summary: 'Fixed.' } });
    await expect(complete()).resolves.toEqual({ summary: 'Fixed.' });

    expect(llm.requests).toHaveLength(2);
    const messages = bodyOf(1)?.messages ?? [];
    expect(messages.map(({ role }) => role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[2]?.content).toBe('Sure! Here is your summary.');
    expect(lastMessageOf(1)).toContain('not valid JSON');
  });

  it('repairs an answer that breaks the schema, naming the path', async () => {
    llm.script({ json: { summary: 42 } }, { json: { summary: 'Fixed.' } });
    await expect(complete()).resolves.toEqual({ summary: 'Fixed.' });
    expect(llm.requests).toHaveLength(2);
    expect(lastMessageOf(1)).toContain('/summary');
  });

  it('fails with INVALID_OUTPUT after one repair round, having asked exactly twice', async () => {
    llm.script({ json: { summary: 42 } }, { json: { key_points: [] } });
    const error = await failure(complete());
    expect(error.code).toBe('INVALID_OUTPUT');
    expect(error.recoverable).toBe(false);
    expect(error.message).toContain('one repair round');
    expect(error.options.details).toEqual([expect.objectContaining({ path: '/summary' })]);
    expect(llm.requests).toHaveLength(2);
  });

  it('reports usage for both rounds of a repair', async () => {
    llm.script(
      { json: { summary: 42 }, usage: { prompt_tokens: 100, completion_tokens: 20 } },
      { json: { summary: 'Fixed.' }, usage: { prompt_tokens: 150, completion_tokens: 10 } },
    );
    await complete();
    expect(usage).toEqual([
      { model: 'fake-model', prompt_tokens: 100, completion_tokens: 20 },
      { model: 'fake-model', prompt_tokens: 150, completion_tokens: 10 },
    ]);
  });

  it('waits as long as Retry-After says after a 429, then succeeds', async () => {
    llm.script({ status: 429, retryAfter: 1 }, { json: { summary: 'Later.' } });
    await expect(complete()).resolves.toEqual({ summary: 'Later.' });
    const [first, second] = llm.requests;
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it('retries a 500, then succeeds', async () => {
    llm.script({ status: 500 }, { json: { summary: 'Recovered.' } });
    await expect(complete()).resolves.toEqual({ summary: 'Recovered.' });
    expect(llm.requests).toHaveLength(2);
  });

  it('fails with a recoverable LLM_PROVIDER_ERROR when the provider keeps answering 503', async () => {
    const echoesKey = { error: { message: `overloaded (key ${KEY})`, type: 'server_error' } };
    llm.script({ status: 503, body: echoesKey }, { status: 503, body: echoesKey });
    const error = await failure(complete({ maxRetries: 1 }));
    expect(error.code).toBe('LLM_PROVIDER_ERROR');
    expect(error.recoverable).toBe(true);
    expect(error.message).toMatch(/answered 503 after 2 attempts/);
    expect(llm.requests).toHaveLength(2);
  });

  it('fails with a recoverable LLM_PROVIDER_ERROR when the provider cannot be reached', async () => {
    const gone = await startFakeLlm();
    await gone.close();
    const error = await failure(complete({ baseUrl: gone.url, maxRetries: 0 }));
    expect(error.code).toBe('LLM_PROVIDER_ERROR');
    expect(error.recoverable).toBe(true);
  });

  it('fails with LLM_REFUSED after one request when the model refuses', async () => {
    llm.script({ refusal: 'I cannot help with that.' });
    const error = await failure(complete());
    expect(error.code).toBe('LLM_REFUSED');
    expect(error.recoverable).toBe(false);
    expect(error.message).toBe('The model refused: I cannot help with that.');
    expect(llm.requests).toHaveLength(1);
  });

  it('treats a content_filter finish as a refusal', async () => {
    llm.script({ finishReason: 'content_filter' });
    expect((await failure(complete())).code).toBe('LLM_REFUSED');
    expect(llm.requests).toHaveLength(1);
  });

  it('cancels the HTTP request when the signal aborts, rejecting with its reason', async () => {
    llm.script({ json: { summary: 'Too late.' }, delayMs: 10_000 });
    const controller = new AbortController();
    const call = complete({}, controller.signal);
    await expect.poll(() => llm.requests.length).toBe(1);

    const abortedAt = Date.now();
    controller.abort(new Error('deadline reached'));
    await expect(call).rejects.toThrow('deadline reached');
    expect(Date.now() - abortedAt).toBeLessThan(1000);
    await expect.poll(() => llm.aborted).toBe(1);
  });

  it('stops waiting out a Retry-After when the signal aborts, as EXECUTION_TIMEOUT without an Error reason', async () => {
    llm.script({ status: 429, retryAfter: 30 });
    const controller = new AbortController();
    const call = complete({}, controller.signal);
    await expect.poll(() => llm.requests[0]?.answeredAt).toBeDefined();
    // Not a wait for an outcome: it lets the client read the 429 and start waiting out Retry-After.
    await sleep(100);

    const abortedAt = Date.now();
    controller.abort('deadline');
    expect((await failure(call)).code).toBe('EXECUTION_TIMEOUT');
    expect(Date.now() - abortedAt).toBeLessThan(1000);
  });

  it('sends the output schema as response_format in json_schema mode', async () => {
    llm.script({ json: { summary: 'ok' } });
    await complete({ structuredOutput: 'json_schema' });
    expect(bodyOf(0)?.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'text_summarize_1_0_0', schema: outputSchema, strict: false },
    });
  });

  it('asks for a JSON object in json_object mode and for nothing in none mode', async () => {
    llm.script({ json: { summary: 'ok' } }, { json: { summary: 'ok' } });
    await complete({ structuredOutput: 'json_object' });
    await complete({ structuredOutput: 'none' });
    expect(bodyOf(0)?.response_format).toEqual({ type: 'json_object' });
    expect(bodyOf(1)).not.toHaveProperty('response_format');
  });

  it('sends the model, temperature and max_tokens, and the key as a bearer token', async () => {
    llm.script({ json: { summary: 'ok' } }, { json: { summary: 'ok' } });
    await complete({ model: 'big-model', temperature: 0.3, maxTokens: 256 });
    expect(bodyOf(0)).toMatchObject({ model: 'big-model', temperature: 0.3, max_tokens: 256 });
    expect(llm.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);

    await complete();
    expect(bodyOf(1)).not.toHaveProperty('temperature');
    expect(bodyOf(1)).not.toHaveProperty('max_tokens');
  });

  it('works without a key (Ollama)', async () => {
    llm.script({ json: { summary: 'ok' } });
    await expect(complete({ apiKey: undefined })).resolves.toEqual({ summary: 'ok' });
  });

  it('fails with TOOL_NOT_AVAILABLE, naming the variable to check, when the key is refused', async () => {
    llm.script({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } });
    const error = await failure(complete({ apiKeySource: 'REVIEW_KEY' }));
    expect(error.code).toBe('TOOL_NOT_AVAILABLE');
    expect(error.recoverable).toBe(false);
    expect(error.message).toContain('REVIEW_KEY');
    expect(llm.requests).toHaveLength(1);
  });

  it('fails with TOOL_NOT_AVAILABLE, naming the model, on a 404', async () => {
    llm.script({ status: 404 });
    const error = await failure(complete({ model: 'no-such-model' }));
    expect(error.code).toBe('TOOL_NOT_AVAILABLE');
    expect(error.recoverable).toBe(false);
    expect(error.message).toContain('no-such-model');
  });

  it('fails with an unrecoverable LLM_PROVIDER_ERROR on another 4xx, without retrying', async () => {
    llm.script({ status: 400, body: { error: { message: 'max_tokens is too large' } } });
    const error = await failure(complete());
    expect(error.code).toBe('LLM_PROVIDER_ERROR');
    expect(error.recoverable).toBe(false);
    expect(error.message).toContain('max_tokens is too large');
    expect(llm.requests).toHaveLength(1);
  });
});
