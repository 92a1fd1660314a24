import { EventStreamParser, eventStreamChunks, type ServerSentEvent } from '@skillrun/client';
import type { Api } from './api';

/**
 * Reads a server-sent events stream over fetch (EventSource cannot send the credential in a
 * header), calling `onEvent` for each event until the server closes it or `signal` aborts.
 * Resolves when the stream ends; rejects when it cannot be opened (with the answer's status).
 */
export async function readEventStream(
  api: Api,
  path: string,
  onEvent: (event: ServerSentEvent) => void,
  signal: AbortSignal,
  lastEventId?: string,
): Promise<void> {
  const response = await api.fetch(path, {
    signal,
    headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
  });
  if (!response.ok || !response.body) throw new Error(`event stream answered ${response.status}`);
  for await (const events of eventStreamChunks(response.body, new EventStreamParser(lastEventId))) {
    for (const event of events) onEvent(event);
  }
}
