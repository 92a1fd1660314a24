import { describe, expect, it } from 'vitest';
import { eventStreamChunks } from '../../packages/client/src/event-stream-reader';

/** A body that sends these chunks, then stays open until canceled (as a live stream does). */
function body(chunks: string[]): { stream: ReadableStream<Uint8Array>; canceled: () => boolean } {
  const encoder = new TextEncoder();
  let canceled = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
    },
    cancel() {
      canceled = true;
    },
  });
  return { stream, canceled: () => canceled };
}

describe("the client's event stream reader", () => {
  it('yields the events each chunk completes, none for a comment or part of a line', async () => {
    const { stream } = body(['data: one\n\n', ': heartbeat\n', 'data: t', 'wo\n\n']);
    const seen: string[][] = [];
    for await (const events of eventStreamChunks(stream)) {
      seen.push(events.map((event) => event.data));
      if (seen.length === 4) break;
    }
    expect(seen).toEqual([['one'], [], [], ['two']]);
  });

  it('cancels the stream when the reader leaves early', async () => {
    const { stream, canceled } = body(['data: one\n\n']);
    for await (const _ of eventStreamChunks(stream)) break;
    expect(canceled()).toBe(true);
  });

  it('ends with the stream', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: last\n\n'));
        controller.close();
      },
    });
    const all = [];
    for await (const events of eventStreamChunks(stream)) all.push(...events);
    expect(all.map((event) => event.data)).toEqual(['last']);
  });
});
