import { type ExecutionHandle, SkillrunClient } from '@skillrun/client';
import { describe, expect, it } from 'vitest';
import { descriptorAt } from '../support/client-descriptor';

const origin = 'http://p.test';

const handle = (withEvents: boolean): ExecutionHandle => ({
  executionId: 'e1',
  skillId: 'x',
  status: 'accepted',
  statusUrl: `${origin}/status/e1`,
  resultUrl: `${origin}/result/e1`,
  ...(withEvents ? { eventsUrl: `${origin}/events/e1` } : {}),
  accepted: { execution_id: 'e1', status: 'accepted', skill_id: 'x' },
  descriptor: descriptorAt(origin),
});

const execution = (status: string, extra: Record<string, unknown> = {}) => ({
  execution_id: 'e1',
  status,
  skill_id: 'x',
  ...extra,
});

/** A stream that sends `text` and then stays open, silent, until the request is aborted. */
function silentAfter(text: string, signal?: AbortSignal | null): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      signal?.addEventListener('abort', () => controller.error(signal.reason));
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

function recording(answer: (url: string, init: RequestInit) => Response) {
  const sent: Array<{ url: string; headers: Headers }> = [];
  const fetch: typeof globalThis.fetch = async (input, init = {}) => {
    sent.push({ url: String(input), headers: new Headers(init.headers) });
    return answer(String(input), init);
  };
  return { sent, fetch };
}

describe('wait', () => {
  it('takes a silent stream for dropped and reopens it with Last-Event-ID', async () => {
    let streams = 0;
    const { sent, fetch } = recording((_url, init) =>
      ++streams === 1
        ? silentAfter(`id: 41\nevent: status\ndata: ${JSON.stringify(execution('running'))}\n\n`, init.signal)
        : silentAfter(
            `: hi\n\nid: 42\nevent: status\ndata: ${JSON.stringify(execution('completed', { output: 7 }))}\n\n`,
            init.signal,
          ),
    );
    const client = new SkillrunClient({ fetch, requestTimeoutMs: 50 });
    const seen: string[] = [];

    const ended = await client.wait(handle(true), { onUpdate: (update) => seen.push(update.status) });

    expect(ended).toMatchObject({ status: 'completed', output: 7 });
    expect(seen).toEqual(['running', 'completed']);
    expect(sent.map((request) => [request.url, request.headers.get('last-event-id')])).toEqual([
      [`${origin}/events/e1`, null],
      [`${origin}/events/e1`, '41'],
    ]);
  });

  it('reads status instead when the stream is refused, and the result when the end lacks its output', async () => {
    const { sent, fetch } = recording((url) => {
      if (url.includes('/events/'))
        return Response.json({ error: { code: 'RATE_LIMIT_EXCEEDED', message: '' } }, { status: 429 });
      if (url.includes('/status/')) return Response.json(execution('completed'));
      return Response.json(execution('completed', { output: { ok: true } }));
    });
    const client = new SkillrunClient({ fetch });

    const ended = await client.wait(handle(true));

    expect(ended.output).toEqual({ ok: true });
    expect(sent.map((request) => request.url)).toEqual([
      `${origin}/events/e1`,
      `${origin}/status/e1`,
      `${origin}/result/e1`,
    ]);
  });

  it('polls a provider that does not wait, as its Retry-After says', async () => {
    let reads = 0;
    const { sent, fetch } = recording(() =>
      ++reads < 3
        ? Response.json(execution('running'), { headers: { 'retry-after': '0' } })
        : Response.json(execution('failed', { error: { code: 'OOPS', message: 'no' } })),
    );
    const client = new SkillrunClient({ fetch });

    const ended = await client.wait(handle(false));

    expect(ended).toMatchObject({ status: 'failed', error: { code: 'OOPS' } });
    expect(sent).toHaveLength(3);
    expect(sent.every((request) => request.headers.get('prefer') === 'wait=30')).toBe(true);
  });

  it('polls as Retry-After-Ms says when the provider sends it beside Retry-After', async () => {
    let reads = 0;
    // An hour by Retry-After: a client that read only that would not end this test.
    const { sent, fetch } = recording(() =>
      ++reads < 3
        ? Response.json(execution('running'), { headers: { 'retry-after': '3600', 'retry-after-ms': '5' } })
        : Response.json(execution('completed', { output: 1 })),
    );
    const client = new SkillrunClient({ fetch });

    expect(await client.wait(handle(false))).toMatchObject({ status: 'completed', output: 1 });
    expect(sent).toHaveLength(3);
  });
});
