import { backoffDelay, retryDelayMs, sleep } from './backoff.js';
import type { WaitOptions } from './client-options.js';
import type { CompiledOptions } from './compiled-options.js';
import { EventStreamParser } from './event-stream-parser.js';
import { eventStreamChunks } from './event-stream-reader.js';
import type { ExecutionHandle } from './execution-handle.js';
import type { HttpAnswer, HttpTransport } from './http-transport.js';
import { type Execution, isTerminal } from './protocol.js';
import { SkillrunError } from './skillrun-error.js';

/** The longest `Prefer: wait=N` asked for, in seconds. */
const LONGEST_WAIT_SECONDS = 30;
/** The longest pause between two polls when the provider neither waits nor says Retry-After. */
const LONGEST_POLL_DELAY_MS = 5_000;

/**
 * Waits for an execution to end: over its live status (`x-events_url`, server-sent events) when
 * the descriptor names one, reconnecting with `Last-Event-ID` when the stream drops; otherwise,
 * or when the stream cannot be had, by reading `status_url` with `Prefer: wait=N` (a provider that
 * does not wait is polled, as its `Retry-After` says or with backoff).
 */
export class ExecutionWaiter {
  constructor(
    private readonly options: CompiledOptions,
    private readonly transport: HttpTransport,
  ) {}

  async wait(handle: ExecutionHandle, options: WaitOptions = {}): Promise<Execution> {
    const deadline = options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs);
    const signals = [options.signal, deadline].filter((signal) => signal !== undefined);
    const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
    const seen = new Seen(options.onUpdate);
    try {
      const ended =
        (handle.eventsUrl ? await this.overEvents(handle, handle.eventsUrl, seen, signal) : undefined) ??
        (await this.byPolling(handle, seen, signal));
      return await this.complete(handle, ended, seen, signal);
    } catch (error) {
      if (deadline?.aborted && !options.signal?.aborted) {
        throw new SkillrunError(
          'WAIT_TIMEOUT',
          `Execution ${handle.executionId} had not ended after ${options.timeoutMs} ms`,
          { recoverable: true, ...(seen.last ? { execution: seen.last } : {}) },
        );
      }
      throw error;
    }
  }

  /**
   * The execution as it ended, from the stream; undefined when the stream is not to be had. A
   * stream silent for longer than requestTimeoutMs (skillrun sends a comment every 15 s) is taken
   * for dropped, like one that breaks: it is reopened with `Last-Event-ID`, after the stream's
   * `retry` when it named one, or with backoff after a connection that brought nothing.
   */
  private async overEvents(
    handle: ExecutionHandle,
    url: string,
    seen: Seen,
    signal?: AbortSignal,
  ): Promise<Execution | undefined> {
    const policy = this.options.retry;
    let lastEventId = '';
    let reconnectMs: number | undefined;
    let failures = 0;
    for (;;) {
      signal?.throwIfAborted();
      const idle = new AbortController();
      const quiet = () => idle.abort();
      // Re-armed at every chunk by a new timer (a browser's timers have no refresh()).
      let timer = setTimeout(quiet, this.options.requestTimeoutMs);
      const parser = new EventStreamParser(lastEventId);
      let events = 0;
      try {
        const response = await this.options.fetch(url, {
          headers: {
            ...this.options.headers,
            ...(await this.options.credentials.for(url, handle.descriptor.auth, signal)),
            accept: 'text/event-stream',
            ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
          },
          signal: signal ? AbortSignal.any([signal, idle.signal]) : idle.signal,
        });
        const type = response.headers.get('content-type') ?? '';
        if (response.status !== 200 || !type.startsWith('text/event-stream') || !response.body) {
          // Not served here (429 past a stream quota, an error, a proxy that buffers): read status.
          await response.body?.cancel().catch(() => undefined);
          return undefined;
        }
        for await (const chunk of eventStreamChunks(response.body, parser)) {
          clearTimeout(timer);
          timer = setTimeout(quiet, this.options.requestTimeoutMs);
          for (const event of chunk) {
            if (event.retry !== undefined) reconnectMs = event.retry;
            if (event.event !== 'status' && event.event !== 'message') continue;
            const execution = parseExecution(event.data);
            if (!execution) continue;
            events++;
            seen.update(execution);
            // Returning leaves the chunks' loop, which cancels the stream.
            if (isTerminal(execution.status)) return execution;
          }
        }
      } catch {
        if (signal?.aborted) throw signal.reason;
        // Unreachable, broken or silent: reconnect from the last event.
      } finally {
        clearTimeout(timer);
        idle.abort();
        lastEventId = parser.lastEventId;
      }
      failures = events > 0 ? 0 : failures + 1;
      if (failures >= policy.maxAttempts) return undefined;
      const delay = failures > 0 ? backoffDelay(policy, failures - 1) : reconnectMs;
      if (delay !== undefined) await sleep(delay, signal);
    }
  }

  private async byPolling(handle: ExecutionHandle, seen: Seen, signal?: AbortSignal): Promise<Execution> {
    for (let poll = 0; ; poll++) {
      const answer = await this.read(handle.statusUrl, handle, LONGEST_WAIT_SECONDS, signal);
      const execution = answer.body;
      seen.update(execution);
      if (isTerminal(execution.status)) return execution;
      if (answer.headers.has('preference-applied')) continue;
      const delay =
        retryDelayMs(answer.headers) ??
        Math.min(backoffDelay(this.options.retry, poll), LONGEST_POLL_DELAY_MS);
      await sleep(delay, signal);
    }
  }

  /** Reads `result_url` when the ended execution lacks its output or error (as spec 001's flow). */
  private async complete(
    handle: ExecutionHandle,
    ended: Execution,
    seen: Seen,
    signal?: AbortSignal,
  ): Promise<Execution> {
    const lacks = ended.status === 'completed' ? !('output' in ended) : ended.error === undefined;
    if (!lacks) return ended;
    const result = (await this.read(handle.resultUrl, handle, 0, signal)).body;
    seen.update(result);
    return result;
  }

  /** GET status or result, waiting up to `waitSeconds` where the provider supports it. */
  read(url: string, handle: ExecutionHandle, waitSeconds: number, signal?: AbortSignal) {
    return readExecution(this.options, this.transport, url, handle, waitSeconds, signal);
  }
}

export async function readExecution(
  options: CompiledOptions,
  transport: HttpTransport,
  url: string,
  handle: Pick<ExecutionHandle, 'descriptor'>,
  waitSeconds: number,
  signal?: AbortSignal,
): Promise<HttpAnswer<Execution>> {
  const answer = await transport.request<Execution>({
    method: 'GET',
    url,
    headers: {
      ...(await options.credentials.for(url, handle.descriptor.auth, signal)),
      ...(waitSeconds > 0 ? { prefer: `wait=${waitSeconds}` } : {}),
    },
    timeoutMs: options.requestTimeoutMs + waitSeconds * 1000,
    ...(signal ? { signal } : {}),
  });
  if (typeof answer.body?.execution_id !== 'string' || typeof answer.body.status !== 'string') {
    throw new SkillrunError('UNEXPECTED_RESPONSE', `GET ${url} answered no execution`, {
      httpStatus: answer.status,
      details: answer.body,
    });
  }
  return answer;
}

/** The states seen so far; calls onUpdate with each one that differs from the last. */
class Seen {
  last: Execution | undefined;
  private lastJson = '';

  constructor(private readonly onUpdate?: (execution: Execution) => void) {}

  update(execution: Execution): void {
    const json = JSON.stringify(execution);
    if (json === this.lastJson) return;
    this.last = execution;
    this.lastJson = json;
    this.onUpdate?.(execution);
  }
}

function parseExecution(data: string): Execution | undefined {
  try {
    const value = JSON.parse(data) as Execution;
    return typeof value?.execution_id === 'string' && typeof value.status === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
