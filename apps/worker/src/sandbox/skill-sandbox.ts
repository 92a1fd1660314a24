import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { ThreadEvent, ThreadOutcome, ThreadTask } from './messages';

export interface SandboxOptions {
  maxThreads: number;
  /** After the deadline, how long the skill may clean up before its thread is terminated. */
  abortGraceMs: number;
}

export interface SandboxRun {
  module: string;
  input: Record<string, unknown>;
  meta: Omit<ThreadTask['meta'], 'deadline'>;
  redis: ThreadTask['redis'];
  timeoutMs: number;
  onEvent(event: ThreadEvent): void;
}

export type SandboxOutcome = ThreadOutcome | { ok: false; timedOut: true };

/**
 * Runs skills in a pool of worker threads (piscina). At the deadline the skill's signal aborts and
 * the attempt ends as timed out at once; a skill that does not stop within the grace period (a
 * busy loop, say) has its thread terminated, and the pool starts a fresh one.
 */
export class SkillSandbox {
  private readonly pool: Piscina;

  constructor(private readonly options: SandboxOptions) {
    this.pool = new Piscina({
      filename: new URL('./skill-thread.ts', import.meta.url).href,
      maxThreads: options.maxThreads,
      minThreads: Math.min(2, options.maxThreads),
      idleTimeout: 60_000,
      concurrentTasksPerWorker: 1,
    });
  }

  run(request: SandboxRun): Promise<SandboxOutcome> {
    const { port1, port2 } = new MessageChannel();
    const kill = new AbortController();
    const deadline = Date.now() + request.timeoutMs;
    port1.on('message', (event: ThreadEvent) => request.onEvent(event));
    const task: ThreadTask = {
      module: request.module,
      input: request.input,
      meta: { ...request.meta, deadline },
      redis: request.redis,
      port: port2,
    };
    const finished = this.pool
      .run(task, { transferList: [port2], signal: kill.signal })
      .then((outcome: ThreadOutcome) => outcome)
      .finally(() => port1.close());

    return new Promise<SandboxOutcome>((resolve) => {
      const timer = setTimeout(() => {
        port1.postMessage({ type: 'abort', reason: `Deadline of ${request.timeoutMs}ms reached` });
        const killTimer = setTimeout(() => kill.abort(), this.options.abortGraceMs);
        finished.finally(() => clearTimeout(killTimer)).catch(() => {});
        resolve({ ok: false, timedOut: true });
      }, request.timeoutMs);
      finished.then(
        (outcome) => {
          clearTimeout(timer);
          resolve(outcome);
        },
        (error: unknown) => {
          clearTimeout(timer);
          resolve({
            ok: false,
            error: {
              code: 'TOOL_EXECUTION_FAILED',
              message: `The skill's thread stopped: ${(error as Error).message ?? String(error)}`.slice(
                0,
                1000,
              ),
              recoverable: true,
            },
          });
        },
      );
    });
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
