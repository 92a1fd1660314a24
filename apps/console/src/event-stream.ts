import type { Api } from './api';

export interface StreamEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * Reads a server-sent events stream over fetch (EventSource cannot send the credential in a
 * header), calling `onEvent` for each event until the server closes it or `signal` aborts.
 * Resolves when the stream ends; rejects when it cannot be opened (with the answer's status).
 */
export async function readEventStream(
  api: Api,
  path: string,
  onEvent: (event: StreamEvent) => void,
  signal: AbortSignal,
  lastEventId?: string,
): Promise<void> {
  const response = await api.fetch(path, {
    signal,
    headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
  });
  if (!response.ok || !response.body) throw new Error(`event stream answered ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  let event: StreamEvent = { event: 'message', data: '' };
  let hasData = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffered += value;
    const lines = buffered.split(/\r\n|\r|\n/);
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (hasData) onEvent({ ...event, data: event.data.replace(/\n$/, '') });
        event = { event: 'message', data: '' };
        hasData = false;
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') {
          event.data += `${text}\n`;
          hasData = true;
        } else if (field === 'event') event.event = text;
        else if (field === 'id') event.id = text;
      }
    }
  }
}
