import type { RetryPolicy } from './backoff.js';
import type { CompiledOptions } from './compiled-options.js';
import type { HttpTransport } from './http-transport.js';

/**
 * Requests to the client's own service (`baseUrl`) with the client's credentials: every call of
 * SkillrunClient and BatchCalls but an invocation's and an execution's (those go where the skill's
 * descriptor says, with the credentials its auth asks for).
 */
export class ServiceRequests {
  constructor(
    private readonly options: CompiledOptions,
    private readonly transport: HttpTransport,
  ) {}

  /** The service's URL; a TypeError for a client made without one. */
  baseUrl(): string {
    if (this.options.baseUrl === undefined) {
      throw new TypeError('This call needs the baseUrl option: the skillrun service it calls');
    }
    return this.options.baseUrl;
  }

  /**
   * A GET; with `waitSeconds`, one that asks to be answered once what it reads has ended (`Prefer:
   * wait=N`), given that much longer than a request's timeout.
   */
  async get<T>(url: string, signal?: AbortSignal, waitSeconds = 0): Promise<T> {
    const answer = await this.transport.request<T>({
      method: 'GET',
      url,
      headers: {
        ...(await this.options.credentials.for(url, undefined, signal)),
        ...(waitSeconds > 0 ? { prefer: `wait=${waitSeconds}` } : {}),
      },
      ...(waitSeconds > 0 ? { timeoutMs: this.options.requestTimeoutMs + waitSeconds * 1000 } : {}),
      ...(signal ? { signal } : {}),
    });
    return answer.body;
  }

  /**
   * A POST, PATCH or DELETE, tried again as the client's retry policy says (these requests are
   * idempotent) unless `retry` says otherwise.
   */
  async send<T>(
    method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    json: unknown,
    signal?: AbortSignal,
    retry?: RetryPolicy,
  ): Promise<T> {
    const answer = await this.transport.request<T>({
      method,
      url,
      headers: await this.options.credentials.for(url, undefined, signal),
      ...(json === undefined ? {} : { json }),
      ...(retry ? { retry } : {}),
      ...(signal ? { signal } : {}),
    });
    return answer.body;
  }
}
