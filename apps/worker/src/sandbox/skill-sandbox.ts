import { fileURLToPath } from 'node:url';
import { SkillError } from '@skillrun/core';
import type { Isolation } from '../loaded-skill';
import type { MemoryTarget, SkillEvent, SkillOutcome, SkillTask } from './messages';
import { SkillRunner } from './run-skill';
import { ThreadPool } from './thread-pool';

/** The source of what each thread runs; the worker bundles it to plain JavaScript at start-up. */
export const SANDBOX_THREAD_ENTRY = fileURLToPath(new URL('./skill-thread.ts', import.meta.url));

export interface SandboxOptions {
  /** The bundled SANDBOX_THREAD_ENTRY. */
  threadModule: string;
  threads: number;
  memoryLimitMb?: number;
  /** Where skills' ctx.memory lives. */
  memory: MemoryTarget;
  /** After the deadline, how long the skill may clean up before its thread is terminated. */
  abortGraceMs: number;
}

export interface SandboxRun extends Omit<SkillTask, 'meta'> {
  meta: Omit<SkillTask['meta'], 'deadline'>;
  isolation: Isolation;
  /** Counted from the moment the run starts (not while its job waited for a slot). */
  timeoutMs: number;
  onEvent(event: SkillEvent): void;
}

export type SandboxOutcome = SkillOutcome | { ok: false; timedOut: true };

/**
 * Runs code skills under their deadline: in the pool of sandbox threads, or in the worker's own
 * thread for `in-process` skills. At the deadline the skill's signal aborts and the attempt ends as
 * timed out at once; a threaded skill that does not stop within the grace period (a busy loop, say)
 * has its thread ended, and a fresh one takes its place.
 */
export class SkillSandbox {
  private readonly pool: ThreadPool;
  private readonly inProcess: SkillRunner;

  constructor(private readonly options: SandboxOptions) {
    this.inProcess = new SkillRunner(options.memory);
    this.pool = new ThreadPool({
      threadModule: options.threadModule,
      threads: options.threads,
      memory: options.memory,
      ...(options.memoryLimitMb === undefined ? {} : { memoryLimitMb: options.memoryLimitMb }),
    });
  }

  run(request: SandboxRun): Promise<SandboxOutcome> {
    const { isolation, timeoutMs, onEvent, ...rest } = request;
    const task: SkillTask = { ...rest, meta: { ...request.meta, deadline: Date.now() + timeoutMs } };
    const reason = `Deadline of ${timeoutMs}ms reached`;
    if (isolation === 'in-process') {
      const controller = new AbortController();
      const outcome = this.inProcess.run(task, onEvent, controller.signal);
      return withDeadline(outcome, timeoutMs, () =>
        controller.abort(new SkillError('EXECUTION_TIMEOUT', reason)),
      );
    }
    const { id, outcome } = this.pool.run(task, onEvent);
    return withDeadline(outcome, timeoutMs, () => {
      this.pool.abort(id, reason);
      const kill = setTimeout(() => this.pool.kill(id), this.options.abortGraceMs);
      void outcome.finally(() => clearTimeout(kill));
    });
  }

  async close(): Promise<void> {
    await this.pool.close();
    this.inProcess.close();
  }
}

/** The outcome, or a timeout at the deadline (when `expire` tells the run to stop). */
function withDeadline(
  outcome: Promise<SkillOutcome>,
  timeoutMs: number,
  expire: () => void,
): Promise<SandboxOutcome> {
  return new Promise<SandboxOutcome>((resolve) => {
    const deadline = setTimeout(() => {
      expire();
      resolve({ ok: false, timedOut: true });
    }, timeoutMs);
    void outcome.then((settled) => {
      clearTimeout(deadline);
      resolve(settled);
    });
  });
}
