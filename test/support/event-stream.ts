import type { Execution } from '@skillrun/core';

export interface StreamEvent {
  id: string;
  event: string;
  /** A `status` event's data. */
  execution: Execution;
  /** The data of any event, parsed (a `chunk` event's `{seq, chunk}`). */
  data: unknown;
}

export interface ReadOptions {
  lastEventId?: string;
  headers?: Record<string, string>;
  /** Stops reading (and closes the stream) after this many events. */
  stopAfter?: number;
  /** Stops reading once the events so far satisfy it. */
  until?: (events: StreamEvent[]) => boolean;
}

/** Opens a server-sent events URL and reads its events until it ends (or a stop condition). */
export async function readStream(
  url: string,
  options: ReadOptions = {},
): Promise<{ status: number; events: StreamEvent[]; contentType: string | null }> {
  const controller = new AbortController();
  const answer = await fetch(url, {
    headers: { ...options.headers, ...(options.lastEventId ? { 'last-event-id': options.lastEventId } : {}) },
    signal: controller.signal,
  });
  const events: StreamEvent[] = [];
  const contentType = answer.headers.get('content-type');
  if (answer.status !== 200 || !answer.body) {
    await answer.text();
    return { status: answer.status, events, contentType };
  }
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for await (const chunk of answer.body) {
      buffered += decoder.decode(chunk, { stream: true });
      for (let end = buffered.indexOf('\n\n'); end !== -1; end = buffered.indexOf('\n\n')) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((line) => line && !line.startsWith(':'))
            .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trimStart()]),
        );
        if (fields.data === undefined) continue;
        const data: unknown = JSON.parse(fields.data);
        events.push({ id: fields.id ?? '', event: fields.event ?? '', execution: data as Execution, data });
        if (events.length === options.stopAfter || options.until?.(events)) {
          controller.abort();
          return { status: 200, events, contentType };
        }
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  return { status: 200, events, contentType };
}
