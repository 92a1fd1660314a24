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

/** What an execution's live status brings: a status, or a chunk of the output its skill streams. */
export type LiveEvent =
  | { type: 'status'; execution: Execution }
  | { type: 'chunk'; seq: number; chunk: unknown };

/** How a follow of the live status ended: the execution as it ended, or why the stream was not to be had. */
type LiveEnd = { ended: Execution } | { unavailable: SkillrunError };

/**
 * Waits for an execution to end: over its live status (`x-events_url`, server-sent events) when
 * the descriptor names one, reconnecting with `Last-Event-ID` when the stream drops; otherwise,
 * or when the stream cannot be had, by reading `status_url` with `Prefer: wait=N` (a provider that
 * does not wait is polled, as its `Retry-After` says or with backoff). `stream` follows the same
 * live status for the chunks of output the skill streams.
 */
export class ExecutionWaiter {
  constructor(
    private readonly options: CompiledOptions,
    private readonly transport: HttpTransport,
  ) {}

  async wait(handle: ExecutionHandle, options: WaitOptions = {}): Promise<Execution> {
    const { signal, deadline } = waitSignal(options);
    const seen = new Seen(options.onUpdate);
    try {
      let ended: Execution | undefined;
      if (handle.eventsUrl) {
        const events = this.liveEvents(handle, handle.eventsUrl, signal);
        for (let next = await events.next(); ; next = await events.next()) {
          if (next.done) {
            if ('ended' in next.value) ended = next.value.ended;
            break;
          }
          if (next.value.type === 'status') seen.update(next.value.execution);
          else options.onChunk?.(next.value.chunk, next.value.seq);
        }
      }
      return await this.complete(handle, ended ?? (await this.byPolling(handle, seen, signal)), seen, signal);
    } catch (error) {
      throw waitError(error, handle, options, deadline, seen);
    }
  }

  /**
   * The chunks of output the execution's skill streams, in order, each once (reconnecting with
   * `Last-Event-ID`); returns the execution as it ended. Needs the live status: without
   * `x-events_url` it throws NOT_SUPPORTED, and when the stream cannot be had, why.
   */
  async *stream(
    handle: ExecutionHandle,
    options: WaitOptions = {},
  ): AsyncGenerator<unknown, Execution, undefined> {
    if (!handle.eventsUrl) {
      throw new SkillrunError('NOT_SUPPORTED', `Skill ${handle.skillId}'s descriptor names no x-events_url`);
    }
    const { signal, deadline } = waitSignal(options);
    const seen = new Seen(options.onUpdate);
    try {
      const events = this.liveEvents(handle, handle.eventsUrl, signal);
      for (let next = await events.next(); ; next = await events.next()) {
        if (next.done) {
          if ('unavailable' in next.value) throw next.value.unavailable;
          return await this.complete(handle, next.value.ended, seen, signal);
        }
        if (next.value.type === 'status') seen.update(next.value.execution);
        else {
          options.onChunk?.(next.value.chunk, next.value.seq);
          yield next.value.chunk;
        }
      }
    } catch (error) {
      throw waitError(error, handle, options, deadline, seen);
    }
  }

  /**
   * The live status's events until the execution ends; `unavailable` when the stream is not to be
   * had. A stream silent for longer than requestTimeoutMs (skillrun sends a comment every 15 s) is
   * taken for dropped, like one that breaks: it is reopened with `Last-Event-ID`, after the
   * stream's `retry` when it named one, or with backoff after a connection that brought nothing.
   * A chunk is yielded once, in seq order, whatever a provider sends again.
   */
  private async *liveEvents(
    handle: ExecutionHandle,
    url: string,
    signal?: AbortSignal,
  ): AsyncGenerator<LiveEvent, LiveEnd, undefined> {
    const policy = this.options.retry;
    let lastEventId = '';
    let lastSeq = 0;
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
          // Not served here (429 past a stream quota, an error, a proxy that buffers).
          await response.body?.cancel().catch(() => undefined);
          return { unavailable: notStreamed(url, response.status) };
        }
        for await (const chunk of eventStreamChunks(response.body, parser)) {
          clearTimeout(timer);
          timer = setTimeout(quiet, this.options.requestTimeoutMs);
          for (const event of chunk) {
            if (event.retry !== undefined) reconnectMs = event.retry;
            const live = parseEvent(event.event, event.data);
            if (!live) continue;
            events++;
            if (live.type === 'chunk') {
              if (live.seq <= lastSeq) continue;
              lastSeq = live.seq;
              yield live;
              continue;
            }
            yield live;
            // Returning leaves the chunks' loop, which cancels the stream.
            if (isTerminal(live.execution.status)) return { ended: live.execution };
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
      if (failures >= policy.maxAttempts) return { unavailable: notStreamed(url) };
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

/** An event of the live status as the client reads it; undefined for one it does not know. */
function parseEvent(type: string, data: string): LiveEvent | undefined {
  if (type !== 'status' && type !== 'message' && type !== 'chunk') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (type === 'chunk') {
    const { seq, chunk } = (value ?? {}) as { seq?: unknown; chunk?: unknown };
    return typeof seq === 'number' && Number.isInteger(seq) ? { type: 'chunk', seq, chunk } : undefined;
  }
  const execution = value as Execution;
  return typeof execution?.execution_id === 'string' && typeof execution.status === 'string'
    ? { type: 'status', execution }
    : undefined;
}

/** The signal a wait runs under: the caller's, and its timeoutMs. */
function waitSignal(options: WaitOptions): { signal?: AbortSignal; deadline?: AbortSignal } {
  const deadline = options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs);
  const signals = [options.signal, deadline].filter((signal) => signal !== undefined);
  return {
    ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}),
    ...(deadline ? { deadline } : {}),
  };
}

/** What a wait throws: WAIT_TIMEOUT when its own timeoutMs ran out, else what it caught. */
function waitError(
  error: unknown,
  handle: ExecutionHandle,
  options: WaitOptions,
  deadline: AbortSignal | undefined,
  seen: Seen,
): unknown {
  if (deadline?.aborted && !options.signal?.aborted) {
    return new SkillrunError(
      'WAIT_TIMEOUT',
      `Execution ${handle.executionId} had not ended after ${options.timeoutMs} ms`,
      { recoverable: true, ...(seen.last ? { execution: seen.last } : {}) },
    );
  }
  return error;
}

/** The live status could not be had: refused (`status`), or every reconnection failed. */
function notStreamed(url: string, status?: number): SkillrunError {
  return new SkillrunError(
    'ENDPOINT_UNREACHABLE',
    status === undefined
      ? `The live status at ${url} could not be had`
      : `The live status at ${url} answered ${status}, not a stream of events`,
    { recoverable: true, ...(status === undefined ? {} : { httpStatus: status }) },
  );
}
