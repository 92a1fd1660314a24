import { SkillrunClient } from '@skillrun/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSkillrun } from '../support/cli-process';
import { cutAfterEvents } from '../support/cut-stream';
import { readStream, type StreamEvent } from '../support/event-stream';
import { repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

const MAX_CHUNK_BYTES = 1024;
const MAX_STREAM_BYTES = 4096;

/**
 * A fetch whose first event stream breaks once `events` events have come through it (what a
 * dropped connection does); `opened` records each stream's Last-Event-ID.
 */
function breakingFetch(events: number): { fetch: typeof fetch; opened: (string | null)[] } {
  const opened: (string | null)[] = [];
  const breaking: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (!String(input).includes('/events/') || !response.body) return response;
    opened.push(new Headers(init?.headers).get('last-event-id'));
    if (opened.length > 1) return response;
    return cutAfterEvents(response, events);
  };
  return { fetch: breaking, opened };
}

/** The chunk events' data, in the order received. */
function chunksOf(events: StreamEvent[]): { seq: number; chunk: unknown }[] {
  return events.filter((event) => event.event === 'chunk').map((event) => event.data as never);
}

describe('streamed output: ctx.emit, chunk events on GET events', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({
      SKILLS_DIR: `${repoRoot}test/fixtures/emit-skills`,
      MAX_CHUNK_BYTES: String(MAX_CHUNK_BYTES),
      MAX_STREAM_BYTES: String(MAX_STREAM_BYTES),
    });
  });
  afterAll(() => system?.stop());

  const start = async (inputs: Record<string, unknown>) => {
    const accepted = await system.client.invoke('emitter', inputs);
    expect(accepted.status).toBe(202);
    return String(accepted.body.execution_id);
  };

  it('sends 20 chunks in order across a reconnection with Last-Event-ID to another gateway: none lost, none twice', async () => {
    const replica = await system.addGateway();
    const id = await start({ count: 20, pause_ms: 40 });
    const first = await readStream(`${system.gateway.url}/skills/emitter/events/${id}`, {
      until: (events) => chunksOf(events).length >= 7,
    });
    expect(first.status).toBe(200);
    expect(first.events[0]?.event).toBe('status');
    const lastId = first.events.at(-1)?.id ?? '';
    expect(lastId).toMatch(/^\d+:7$/);
    const resumed = await readStream(`${replica.url}/skills/emitter/events/${id}`, { lastEventId: lastId });
    const seen = [...chunksOf(first.events), ...chunksOf(resumed.events)];
    expect(seen).toEqual(
      Array.from({ length: 20 }, (_, index) => ({ seq: index + 1, chunk: { n: index + 1 } })),
    );
    // Every chunk comes before the end, which closes the stream.
    const end = resumed.events.at(-1);
    expect(end?.event).toBe('status');
    expect(end?.execution).toMatchObject({ status: 'completed', output: { emitted: 20 } });
    expect(end?.id).toMatch(/^\d+:20$/);
    // Ids name each event's place: a chunk's, the seq it carries.
    for (const event of [...first.events, ...resumed.events].filter(({ event }) => event === 'chunk')) {
      expect(event.id.split(':')[1]).toBe(String((event.data as { seq: number }).seq));
    }
    // Reconnecting once it has ended and all was seen: nothing new, and the stream closes.
    const after = await readStream(`${system.gateway.url}/skills/emitter/events/${id}`, {
      lastEventId: end?.id ?? '',
    });
    expect(after.events).toEqual([]);
  });

  it('replays every chunk to a stream opened after the end, before the final status', async () => {
    const id = await start({ count: 5, kind: 'text' });
    await system.client.waitForEnd('emitter', id);
    const { events } = await readStream(`${system.gateway.url}/skills/emitter/events/${id}`);
    expect(events.map((event) => event.event)).toEqual([
      'chunk',
      'chunk',
      'chunk',
      'chunk',
      'chunk',
      'status',
    ]);
    expect(chunksOf(events).map(({ chunk }) => chunk)).toEqual([1, 2, 3, 4, 5].map((n) => `line ${n}\n`));
    // A client that saw the status of an execution that had streamed nothing yet resumes from its plain id.
    const fromStatus = await readStream(`${system.gateway.url}/skills/emitter/events/${id}`, {
      lastEventId: '1',
    });
    expect(chunksOf(fromStatus.events)).toHaveLength(5);
  });

  it('fails an execution whose chunk, or whose chunks in all, are over the bounds (OUTPUT_TOO_LARGE); the worker serves on', async () => {
    const big = await start({ count: 2, big_bytes: MAX_CHUNK_BYTES + 1 });
    const overTotal = await start({ count: 1000 });
    const swallowed = await start({ count: 1000, swallow_refusal: true });
    for (const id of [big, overTotal, swallowed]) {
      const { final } = await system.client.waitForEnd('emitter', id);
      expect(final.status).toBe('failed');
      expect(final.error).toMatchObject({ code: 'OUTPUT_TOO_LARGE', recoverable: false });
    }
    const { final } = await system.client.waitForEnd('emitter', big);
    expect(final.error?.message).toContain('MAX_CHUNK_BYTES');
    expect((await system.client.waitForEnd('emitter', overTotal)).final.error?.message).toContain(
      'MAX_STREAM_BYTES',
    );
    // What was streamed within the bounds is kept: the two chunks before the big one.
    const { events } = await readStream(`${system.gateway.url}/skills/emitter/events/${big}`);
    expect(chunksOf(events).map(({ seq }) => seq)).toEqual([1, 2]);
    const fine = await start({ count: 3 });
    expect((await system.client.waitForEnd('emitter', fine)).final).toMatchObject({
      status: 'completed',
      output: { emitted: 3 },
    });
  });

  it('client.stream yields every chunk in order, once, across a dropped connection, and returns the end', async () => {
    const { fetch: breaking, opened } = breakingFetch(8);
    const client = new SkillrunClient({ baseUrl: system.gateway.url, fetch: breaking });
    const handle = await client.invoke('emitter', { count: 20, pause_ms: 30, kind: 'text' });
    const chunks: unknown[] = [];
    const stream = client.stream(handle);
    let next = await stream.next();
    for (; !next.done; next = await stream.next()) chunks.push(next.value);
    expect(chunks).toEqual(Array.from({ length: 20 }, (_, index) => `line ${index + 1}\n`));
    expect(next.value).toMatchObject({ status: 'completed', output: { emitted: 20 } });
    expect(opened.length).toBeGreaterThanOrEqual(2);
    expect(opened[0]).toBeNull();
    expect(opened[1]).toMatch(/^\d+(:\d+)?$/);
    // The plain for-await form, and onChunk on a wait, see the same.
    const again = await client.invoke('emitter', { count: 3 });
    const seen: unknown[] = [];
    for await (const chunk of client.stream(again)) seen.push(chunk);
    expect(seen).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const waited: [unknown, number][] = [];
    const third = await client.invoke('emitter', { count: 2 });
    await client.wait(third, { onChunk: (chunk, seq) => waited.push([chunk, seq]) });
    expect(waited).toEqual([
      [{ n: 1 }, 1],
      [{ n: 2 }, 2],
    ]);
  });

  it('skillrun invoke --wait prints the chunks as they come (text as text, others as JSON lines), then the output', async () => {
    const env = { SKILLRUN_URL: system.gateway.url, SKILLRUN_CALLER: 'cli-tester' };
    const text = await runSkillrun(['invoke', 'emitter', 'count=3', 'kind=text', '--wait'], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(`line 1\nline 2\nline 3\n${JSON.stringify({ emitted: 3 }, null, 2)}\n`);
    const objects = await runSkillrun(['invoke', 'emitter', 'count=2', '--wait'], { env });
    expect(objects.code, objects.stderr).toBe(0);
    expect(objects.stdout.split('\n').slice(0, 2)).toEqual(['{"n":1}', '{"n":2}']);
    // With --json, stdout is the final state's JSON alone.
    const json = await runSkillrun(['invoke', 'emitter', 'count=2', '--wait', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'completed', output: { emitted: 2 } });
  });

  it('sends what a composite emits once, though it is replayed from the start after its steps', async () => {
    const accepted = await system.client.invoke('relay', {});
    expect(accepted.status).toBe(202);
    const relay = String(accepted.body.execution_id);
    expect((await system.client.waitForEnd('relay', relay)).final).toMatchObject({ status: 'completed' });
    const { events } = await readStream(`${system.gateway.url}/skills/relay/events/${relay}`);
    expect(chunksOf(events)).toEqual([
      { seq: 1, chunk: 'before' },
      { seq: 2, chunk: 'after one' },
      { seq: 3, chunk: 'end' },
    ]);
  });
});
