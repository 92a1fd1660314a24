import { isTerminal } from '@skillrun/client';
import { ApiError } from './api';
import type { PageContext } from './context';
import { readEventStream } from './event-stream';
import type { Execution } from './protocol';

/**
 * Follows an execution until it ends or the page is left: its live status (server-sent events,
 * `GET events`) while the service offers it, else polling `GET status` with `Prefer: wait`, which
 * answers as soon as it changes. Calls `onStatus` with every state, `onMode` with how it follows,
 * and `onChunk` with each chunk of output the skill streams, once each, in order (over the live
 * status only: polling sees none).
 *
 * Not the client's `wait`, though the parser, the reader and `isTerminal` are the client's: that
 * follows the absolute URLs a descriptor names (the service's advertised base URL, which need not
 * be the origin this page was loaded from: a proxy, localhost for 127.0.0.1), where the console
 * stays on its own origin with the credential it renews, and shows which of the two ways it follows.
 */
export async function followExecution(
  context: PageContext,
  skillId: string,
  executionId: string,
  onStatus: (execution: Execution) => void,
  onMode: (mode: string) => void = () => {},
  onChunk: (chunk: unknown) => void = () => {},
): Promise<void> {
  const base = `/skills/${encodeURIComponent(skillId)}`;
  const id = encodeURIComponent(executionId);
  let last: Execution | undefined;
  let lastEventId: string | undefined;
  let lastSeq = 0;
  let streaming = true;
  while (!context.signal.aborted && !(last && isTerminal(last.status))) {
    try {
      if (streaming) {
        onMode('live');
        await readEventStream(
          context.api,
          `${base}/events/${id}`,
          (event) => {
            if (event.event === 'chunk') {
              // Its id names the last chunk seen: a reconnection goes on after it.
              if (event.id) lastEventId = event.id;
              const { seq, chunk } = JSON.parse(event.data) as { seq: number; chunk: unknown };
              if (seq <= lastSeq) return;
              lastSeq = seq;
              onChunk(chunk);
              return;
            }
            if (event.event !== 'status') return;
            if (event.id) lastEventId = event.id;
            last = JSON.parse(event.data) as Execution;
            onStatus(last);
          },
          context.signal,
          lastEventId,
        );
      } else {
        onMode('polling');
        last = await context.api.request<Execution>(`${base}/status/${id}`, {
          signal: context.signal,
          headers: { prefer: 'wait=10' },
        });
        onStatus(last);
      }
    } catch (error) {
      if (context.signal.aborted) return;
      if (error instanceof ApiError && (error.status === 404 || error.status === 401)) throw error;
      // No stream (too many open, or a proxy that buffers): poll instead, after a breath.
      streaming = false;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
