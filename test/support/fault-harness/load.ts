import type { History } from './history';

/** How long one invocation may take to be answered before it counts as not answered. */
const ANSWER_TIMEOUT_MS = 20_000;

export interface LoadOptions {
  /** The gateways, each caller keeping to one (caller i to gateway i mod their number). */
  gateways: readonly string[];
  callers: number;
  /** Pause of each caller between an answer and its next invocation. */
  pauseMs: number;
  /** The `recorded` skill's inputs. */
  inputs: { log: string; ms: number };
}

/**
 * A steady load of `recorded` invocations, from this process (the bridge's side): each caller
 * invokes again once answered, after a pause, and every invocation and answer goes in the history.
 */
export class Load {
  private running = true;
  private readonly callers: Promise<void>[];

  constructor(
    private readonly options: LoadOptions,
    private readonly history: History,
  ) {
    this.callers = Array.from({ length: options.callers }, (_, index) => this.caller(index));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.callers);
  }

  private async caller(index: number): Promise<void> {
    const gateway = index % this.options.gateways.length;
    const url = `${this.options.gateways[gateway]}/skills/recorded/invoke`;
    const body = JSON.stringify({
      caller: { id: 'harness', type: 'service' },
      skill_id: 'recorded',
      inputs: this.options.inputs,
    });
    while (this.running) {
      const at = Date.now();
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
        });
        const answer = (await response.json().catch(() => ({}))) as { execution_id?: string };
        this.history.sent.push({
          at,
          gateway,
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          ...(response.status === 202 ? { executionId: String(answer.execution_id) } : {}),
        });
      } catch {
        this.history.sent.push({ at, gateway, status: 'none', retryAfter: null });
      }
      await new Promise((resolve) => setTimeout(resolve, this.options.pauseMs));
    }
  }
}
