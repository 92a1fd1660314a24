import { EventStreamParser, type ServerSentEvent } from './event-stream-parser.js';

/**
 * A `text/event-stream` body read as it arrives: for each chunk, the events it completes (none for
 * a chunk that only holds a comment or part of a line, so a reader can still tell a quiet stream
 * from a silent one). Reads with the stream's reader rather than async iteration, which not every
 * browser has. Leaving the loop early cancels the stream.
 */
export async function* eventStreamChunks(
  body: ReadableStream<Uint8Array>,
  parser = new EventStreamParser(),
): AsyncGenerator<ServerSentEvent[], void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        return;
      }
      yield parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    if (!ended) await reader.cancel().catch(() => undefined);
  }
}
