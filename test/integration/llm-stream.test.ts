import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readStream } from '../support/event-stream';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm-server';
import { TestSystem } from '../support/system';

const SKILLS_DIR = fileURLToPath(new URL('../fixtures/llm-stream-skills', import.meta.url));
const MAX_STREAM_BYTES = 2048;

describe('an llm skill with "stream": true against a local OpenAI-compatible server', () => {
  let system: TestSystem;
  let llm: FakeLlm;

  beforeAll(async () => {
    llm = await startFakeLlm();
    system = await TestSystem.start();
    await system.addWorker({
      SKILLS_DIR,
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '0',
      MAX_CHUNK_BYTES: '1024',
      MAX_STREAM_BYTES: String(MAX_STREAM_BYTES),
    });
  });
  afterAll(async () => {
    await system?.stop();
    await llm?.close();
  });
  beforeEach(() => {
    llm.requests.length = 0;
  });

  const start = async () => {
    const accepted = await system.client.invoke('streamed_summary', { text: 'The quick brown fox jumps.' });
    expect(accepted.status).toBe(202);
    return String(accepted.body.execution_id);
  };

  it("streams the model's text deltas as chunks, in order, before the end; the output and usage as ever", async () => {
    const answer = { summary: 'A quick fox jumps.', words: 5 };
    llm.script({
      json: answer,
      deltaChars: 5,
      deltaPauseMs: 30,
      usage: { prompt_tokens: 30, completion_tokens: 12 },
    });
    const id = await start();
    const { events } = await readStream(`${system.gateway.url}/skills/streamed_summary/events/${id}`);
    const chunks = events
      .filter((event) => event.event === 'chunk')
      .map((event) => event.data as { seq: number; chunk: string });
    const text = JSON.stringify(answer);
    expect(chunks.map(({ seq }) => seq)).toEqual(
      Array.from({ length: Math.ceil(text.length / 5) }, (_, i) => i + 1),
    );
    expect(chunks.map(({ chunk }) => chunk).join('')).toBe(text);
    expect(events.at(-1)?.execution).toMatchObject({
      status: 'completed',
      output: answer,
      usage: { prompt_tokens: 30, completion_tokens: 12, requests: 1 },
    });
    const [request] = llm.requests;
    expect(request?.body.stream).toBe(true);
    expect(request?.body.stream_options).toEqual({ include_usage: true });
    expect(request?.body.response_format?.type).toBe('json_schema');
  });

  it('fails with OUTPUT_TOO_LARGE when the answer streams over MAX_STREAM_BYTES, and the worker serves on', async () => {
    llm.script({ json: { summary: 'word '.repeat(MAX_STREAM_BYTES / 4), words: 1 }, deltaChars: 50 });
    const id = await start();
    const { final } = await system.client.waitForEnd('streamed_summary', id);
    expect(final.status).toBe('failed');
    expect(final.error).toMatchObject({ code: 'OUTPUT_TOO_LARGE', recoverable: false });
    expect(final.error?.message).toContain('MAX_STREAM_BYTES');
    llm.script({ json: { summary: 'ok', words: 1 } });
    const again = await start();
    expect((await system.client.waitForEnd('streamed_summary', again)).final.status).toBe('completed');
  });
});
