import {
  type ErrorBody,
  type OutboundHttp,
  OutboundRefusal,
  type OutboundResponse,
  type SkillDescriptor,
  SkillError,
} from '@skillrun/core';
import { tracingStarted } from '@skillrun/telemetry';
import { type ProviderAuth, parseJson } from './provider-auth';

/** What the provider said of an execution: its output, its failure, or to ask again later. */
export type ProviderAnswer =
  | { ended: true; output: unknown }
  | { ended: true; error: ErrorBody }
  | { ended: false; executionId: string; retryAfterMs?: number };

/** What we send with an invocation, besides the inputs. */
export interface ProviderCall {
  inputs: Record<string, unknown>;
  caller: { id: string; type: string };
  traceId: string;
  /** What is left of our deadline: the provider need not work past it. */
  timeoutMs: number;
  signal: AbortSignal;
}

const FINAL = new Set(['completed', 'failed', 'timeout', 'canceled']);

/**
 * A consumer of spec 001, calling a provider on our behalf: invoke at its endpoint (a 202 with the
 * provider's execution id, or a 200 with the output at once), then its status (and result) URLs.
 * Its failures become ours with its own error kept in `details.remote`; what cannot be reached or
 * answers 5xx or 429 is a recoverable FETCH_FAILED, which our retries (or the next poll) take up.
 */
export class RemoteProvider {
  constructor(
    private readonly http: OutboundHttp,
    private readonly auth: ProviderAuth,
  ) {}

  async invoke(descriptor: SkillDescriptor, call: ProviderCall): Promise<ProviderAnswer> {
    const { endpoint } = descriptor;
    const answer = await this.send(descriptor, endpoint.url, call.signal, {
      method: 'POST',
      headers: {
        'content-type': endpoint.content_type,
        ...traceparentOf(call.traceId),
      },
      body: JSON.stringify({
        // Authenticated, we call as the caller our credentials are at the provider.
        caller: { ...call.caller, id: (await this.auth.callerIdFor(descriptor)) ?? call.caller.id },
        skill_id: descriptor.id,
        version: descriptor.version,
        inputs: call.inputs,
        context: { trace_id: call.traceId, timeout_ms: Math.max(1, Math.floor(call.timeoutMs)) },
      }),
    });
    const body = parseJson(answer.body) as Record<string, unknown> | undefined;
    if (answer.status === 200) return this.ended(descriptor, body);
    if (answer.status === 202 && typeof body?.execution_id === 'string') {
      return { ended: false, executionId: body.execution_id, ...retryAfter(answer) };
    }
    throw refusedBy(descriptor, answer, body);
  }

  /** Where the provider's execution stands: its end (the result read when status lacks the output), or not yet. */
  async poll(descriptor: SkillDescriptor, executionId: string, signal: AbortSignal): Promise<ProviderAnswer> {
    const status = await this.read(descriptor, descriptor.endpoint.status_url, executionId, signal);
    const state = String(status.body.status ?? '');
    if (!FINAL.has(state)) return { ended: false, executionId, ...retryAfter(status.answer) };
    if (state === 'completed' && !('output' in status.body)) {
      const result = await this.read(descriptor, descriptor.endpoint.result_url, executionId, signal);
      return this.ended(descriptor, result.body);
    }
    return this.ended(descriptor, status.body);
  }

  /** Asks the provider to cancel, where its descriptor says how; whatever it answers, we have ended. */
  async cancel(descriptor: SkillDescriptor, executionId: string, signal: AbortSignal): Promise<void> {
    const url = descriptor.endpoint['x-cancel_url'];
    if (!url) return;
    await this.send(descriptor, url.replace('{execution_id}', encodeURIComponent(executionId)), signal, {
      method: 'POST',
    }).catch(() => {});
  }

  private async read(
    descriptor: SkillDescriptor,
    template: string,
    executionId: string,
    signal: AbortSignal,
  ) {
    const url = template.replace('{execution_id}', encodeURIComponent(executionId));
    const answer = await this.send(descriptor, url, signal, { method: 'GET' });
    const body = parseJson(answer.body) as Record<string, unknown> | undefined;
    if (answer.status !== 200 || body === undefined) throw refusedBy(descriptor, answer, body);
    return { answer, body };
  }

  /** The end the provider reports, in our terms. */
  private ended(descriptor: SkillDescriptor, body: Record<string, unknown> | undefined): ProviderAnswer {
    const state = body?.status;
    // A synchronous provider may answer the output itself, or an execution that carries it.
    if (state === undefined || state === 'completed') {
      return { ended: true, output: body !== undefined && 'output' in body ? body.output : (body ?? null) };
    }
    const remote = (body?.error ?? {}) as Partial<ErrorBody>;
    const code =
      state === 'timeout'
        ? 'EXECUTION_TIMEOUT'
        : state === 'canceled'
          ? 'EXECUTION_CANCELED'
          : 'TOOL_EXECUTION_FAILED';
    const error = new SkillError(
      code,
      `The provider's execution ${state === 'timeout' ? 'timed out' : state}${remote.message ? `: ${String(remote.message).slice(0, 500)}` : ''}`,
      {
        recoverable: state !== 'canceled' && remote.recoverable !== false,
        details: { remote, provider: descriptor.endpoint.url },
      },
    );
    return { ended: true, error: error.toBody() };
  }

  private async send(
    descriptor: SkillDescriptor,
    url: string,
    signal: AbortSignal,
    init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string },
  ): Promise<OutboundResponse> {
    const headers = {
      accept: 'application/json',
      ...init.headers,
      ...(await this.auth.headersFor(descriptor, signal)),
    };
    try {
      const answer = await this.http.send(url, { ...init, headers, signal });
      if (answer.status === 401) this.auth.forget(descriptor);
      return answer;
    } catch (error) {
      if (error instanceof OutboundRefusal) {
        throw new SkillError('TOOL_NOT_AVAILABLE', `The provider cannot be called: ${error.message}`, {
          recoverable: false,
        });
      }
      if (signal.aborted) throw error;
      throw new SkillError('FETCH_FAILED', `The provider could not be reached: ${(error as Error).message}`, {
        details: { provider: new URL(url).origin },
      });
    }
  }
}

/**
 * When the provider asks to be asked again, in ms: its Retry-After-Ms (a sub-second hint, as a
 * skillrun gateway sends on an unfinished status), else its Retry-After (seconds or an HTTP date).
 */
function retryAfter(answer: OutboundResponse): { retryAfterMs?: number } {
  const hint = headerOf(answer, 'retry-after-ms')?.trim();
  if (hint !== undefined && /^\d+(\.\d+)?$/.test(hint)) return { retryAfterMs: Number(hint) };
  const value = headerOf(answer, 'retry-after');
  if (value === undefined) return {};
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? { retryAfterMs: Math.max(0, ms) } : {};
}

/** A header of the provider's answer (undici lower-cases names), its first value if repeated. */
function headerOf(answer: OutboundResponse, name: string): string | undefined {
  const header = answer.headers[name];
  return Array.isArray(header) ? header[0] : header;
}

/** A refusal by the provider, in our terms: its 4xx is final, its 429 and 5xx are worth retrying. */
function refusedBy(
  descriptor: SkillDescriptor,
  answer: OutboundResponse,
  body: Record<string, unknown> | undefined,
): SkillError {
  const remote = (body?.error ?? body ?? {}) as Record<string, unknown>;
  const details = { status: answer.status, remote, provider: descriptor.endpoint.url };
  if (answer.status === 429 || answer.status >= 500) {
    return new SkillError('FETCH_FAILED', `The provider answered ${answer.status}`, { details });
  }
  const code =
    answer.status === 401 || answer.status === 403 || answer.status === 404
      ? 'TOOL_NOT_AVAILABLE'
      : 'TOOL_EXECUTION_FAILED';
  const message = typeof remote.message === 'string' ? `: ${remote.message.slice(0, 500)}` : '';
  return new SkillError(code, `The provider refused the call (${answer.status})${message}`, {
    recoverable: false,
    details,
  });
}

/**
 * W3C trace context for the provider, when our trace id is one (32 hex digits). A process that
 * traces sends its call's own span instead: the HTTP client's instrumentation adds it.
 */
function traceparentOf(traceId: string): { traceparent?: string } {
  if (tracingStarted() || !/^[0-9a-f]{32}$/.test(traceId)) return {};
  return { traceparent: `00-${traceId}-${'0'.repeat(15)}1-01` };
}
