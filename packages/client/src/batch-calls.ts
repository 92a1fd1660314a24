import type { BatchOptions, CallOptions, WaitBatchOptions } from './client-options.js';
import type { BatchAccepted, BatchItem, BatchView } from './protocol.js';
import type { ServiceRequests } from './service-requests.js';
import { SkillrunError, unexpectedResponse } from './skillrun-error.js';
import { urlWithQuery } from './url-template.js';

/** The longest `Prefer: wait=N` a batch read asks for, in seconds. */
const LONGEST_WAIT_SECONDS = 30;

/** Who a POST /batches names as its caller (SkillrunClient's, as for an invocation there). */
export type CallerOf = (url: string, signal?: AbortSignal) => Promise<{ id: string; type: string }>;

/**
 * skillrun's batches, on the client's service (`baseUrl`): POST /batches, GET /batches/{id}
 * (waiting with `Prefer: wait=N`) and its cancel. SkillrunClient's batch calls.
 */
export class BatchCalls {
  constructor(
    private readonly service: ServiceRequests,
    private readonly callerOf: CallerOf,
  ) {}

  /**
   * POST /batches. Each item without an `idempotency_key` gets one made from the call's key (the
   * given one, or a new one) and its place, so that a POST retried after a lost answer starts
   * nothing twice.
   */
  async submit(items: BatchItem[], options: BatchOptions = {}): Promise<BatchAccepted> {
    const url = this.url('/batches');
    const key = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    const body = {
      caller: await this.callerOf(url, options.signal),
      items: items.map((item, index) => ({ idempotency_key: `${key}:${index}`, ...item })),
    };
    const answer = await this.service.send<BatchAccepted>('POST', url, body, options.signal);
    if (typeof answer?.batch_id !== 'string' || !Array.isArray(answer.executions)) {
      throw unexpectedResponse(url, answer);
    }
    return answer;
  }

  /** GET /batches/{id}; with `waitSeconds`, answered once every execution has ended or after them. */
  async get(batchId: string, options: CallOptions & { waitSeconds?: number } = {}): Promise<BatchView> {
    const url = this.url(`/batches/${encodeURIComponent(batchId)}`);
    const answer = await this.service.get<BatchView>(url, options.signal, options.waitSeconds);
    if (typeof answer?.ended !== 'boolean') throw unexpectedResponse(url, answer);
    return answer;
  }

  /** The batch once every execution of it has ended, read with `Prefer: wait=N` until then. */
  async wait(batchId: string, options: WaitBatchOptions = {}): Promise<BatchView> {
    const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
    for (let waitSeconds = 0; ; waitSeconds = LONGEST_WAIT_SECONDS) {
      const left = deadline === undefined ? LONGEST_WAIT_SECONDS : Math.floor((deadline - Date.now()) / 1000);
      const view = await this.get(batchId, {
        waitSeconds: Math.max(0, Math.min(waitSeconds, left)),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      options.onUpdate?.(view);
      if (view.ended) return view;
      if (deadline !== undefined && Date.now() >= deadline) {
        throw new SkillrunError(
          'WAIT_TIMEOUT',
          `Batch ${batchId} had not ended after ${options.timeoutMs} ms`,
          {
            recoverable: true,
          },
        );
      }
    }
  }

  /** POST /batches/{id}/cancel: every execution of it that has not ended, canceled. */
  async cancel(batchId: string, options: CallOptions = {}): Promise<BatchView> {
    const url = this.url(`/batches/${encodeURIComponent(batchId)}/cancel`);
    const answer = await this.service.send<BatchView>('POST', url, undefined, options.signal);
    if (typeof answer?.ended !== 'boolean') throw unexpectedResponse(url, answer);
    return answer;
  }

  private url(path: string): string {
    return urlWithQuery(this.service.baseUrl(), path);
  }
}
