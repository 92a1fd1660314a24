import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import type { ErrorBody } from '@skillrun/core';
import { Piscina } from 'piscina';
import type { ThreadEvent, ThreadMessage, ThreadOutcome, ThreadTask } from './messages';

/** The source of what each thread runs; the worker bundles it to plain JavaScript at start-up. */
export const SANDBOX_THREAD_ENTRY = fileURLToPath(new URL('./skill-thread.ts', import.meta.url));

export interface SandboxOptions {
  /** The bundled SANDBOX_THREAD_ENTRY. */
  threadModule: string;
  maxThreads: number;
  /** After the deadline, how long the skill may clean up before its thread is terminated. */
  abortGraceMs: number;
}

export interface SandboxRun {
  module: string;
  input: Record<string, unknown>;
  meta: Omit<ThreadTask['meta'], 'deadline'>;
  redis: ThreadTask['redis'];
  composite?: ThreadTask['composite'];
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
      filename: pathToFileURL(options.threadModule).href,
      // Threads run bundled JavaScript: no TypeScript loader to start in each of them.
      execArgv: [],
      maxThreads: options.maxThreads,
      minThreads: Math.min(2, options.maxThreads),
      idleTimeout: 60_000,
      concurrentTasksPerWorker: 1,
    });
  }

  run(request: SandboxRun): Promise<SandboxOutcome> {
    const { port1, port2 } = new MessageChannel();
    const kill = new AbortController();
    const task: ThreadTask = {
      module: request.module,
      input: request.input,
      meta: { ...request.meta, deadline: Date.now() + request.timeoutMs },
      redis: request.redis,
      ...(request.composite ? { composite: request.composite } : {}),
      port: port2,
    };
    return new Promise<SandboxOutcome>((resolve) => {
      const settle = (outcome: SandboxOutcome) => {
        clearTimeout(deadline);
        resolve(outcome);
      };
      port1.on('message', (message: ThreadMessage) => {
        if (message.type !== 'outcome') return request.onEvent(message);
        port1.close();
        settle(message.outcome);
      });
      const deadline = setTimeout(() => {
        port1.postMessage({ type: 'abort', reason: `Deadline of ${request.timeoutMs}ms reached` });
        const killTimer = setTimeout(() => kill.abort(), this.options.abortGraceMs);
        port1.once('close', () => clearTimeout(killTimer));
        settle({ ok: false, timedOut: true });
      }, request.timeoutMs);
      this.pool.run(task, { transferList: [port2], signal: kill.signal }).then(
        () => {},
        (error: unknown) => {
          port1.close();
          settle({ ok: false, error: threadDied(error) });
        },
      );
    });
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

function threadDied(error: unknown): ErrorBody {
  const reason = error instanceof Error ? error.message : String(error);
  return {
    code: 'TOOL_EXECUTION_FAILED',
    message: `The skill's thread stopped: ${reason}`.slice(0, 1000),
    recoverable: true,
  };
}
