import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Logger, SkillError } from '@skillrun/core';
import type { Isolation } from '../skills/loaded-skill';
import type { StreamLimits } from '../streaming/stream-budget';
import type { AbortCode, MemoryTarget, SkillEvent, SkillOutcome, SkillTask } from './messages';
import { SkillRunner } from './run-skill';
import { ThreadPool } from './thread-pool';

/**
 * What each thread runs, in the form this module runs in: the source `skill-thread.ts` beside it,
 * or, in the production build, `skill-thread.mjs` beside the worker's bundle (scripts/build.mts).
 * The worker bundles it (with what it imports) to one plain JavaScript file at start-up either way.
 */
export const SANDBOX_THREAD_ENTRY = fileURLToPath(
  new URL(`./skill-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

export interface SandboxOptions {
  /** The bundled SANDBOX_THREAD_ENTRY. */
  threadModule: string;
  /** Threads of each pool. */
  threads: number;
  /** Memory limit of a thread, in MB, for skills that declare none (SANDBOX_THREAD_MEMORY_MB). */
  memoryLimitMb: number;
  /** The other limits hosted skills declare (skill.json memory_mb): a pool of threads for each. */
  skillMemoryLimitsMb?: number[];
  /** Where skills' ctx.memory lives. */
  memory: MemoryTarget;
  /** How much each run may stream (ctx.emit). */
  stream: StreamLimits;
  /** After the deadline or a cancel, how long the skill may clean up before its thread is terminated. */
  abortGraceMs: number;
  /** Where a thread ended for a skill that ignored its signal is reported. */
  logger: Logger;
}

export interface SandboxRun extends Omit<SkillTask, 'meta'> {
  meta: Omit<SkillTask['meta'], 'deadline'>;
  isolation: Isolation;
  /** The memory limit of the threads it runs on; the sandbox's default when absent. */
  memoryMb?: number;
  /** Counted from the moment the run starts (not while its job waited for a slot). */
  timeoutMs: number;
  /** Fires when the execution is canceled: the run stops as at its deadline. */
  cancel?: Cancelable;
  onEvent(event: SkillEvent): void;
}

/** What tells a run that its execution was canceled (the attempt's CancelWatch). */
export interface Cancelable {
  /** Calls `listener` once when the execution is canceled (at once if it was); returns its removal. */
  onCancel(listener: () => void): () => void;
}

export type SandboxOutcome = SkillOutcome | { ok: false; timedOut: true } | { ok: false; canceled: true };

/**
 * Runs code skills under their deadline: in the pool of sandbox threads, or in the worker's own
 * thread for `in-process` skills. At the deadline (or a cancel) the skill's signal aborts and the
 * attempt ends as timed out (or canceled) at once; a threaded skill that does not stop within the
 * grace period (a busy loop, say) has its thread ended, and a fresh one takes its place. An
 * in-process skill that ignores its signal runs on: it is the price of its isolation.
 *
 * Threads run under a memory limit, so there is a pool for each limit in use: the default's, and
 * one for each other limit a hosted skill declares.
 */
export class SkillSandbox {
  /** By memory limit (MB). */
  private readonly pools = new Map<number, ThreadPool>();
  private readonly inProcess: SkillRunner;

  constructor(private readonly options: SandboxOptions) {
    this.inProcess = new SkillRunner(options.memory, options.stream);
    for (const limit of [options.memoryLimitMb, ...(options.skillMemoryLimitsMb ?? [])]) {
      if (this.pools.has(limit)) continue;
      this.pools.set(
        limit,
        new ThreadPool({
          threadModule: options.threadModule,
          threads: options.threads,
          memory: options.memory,
          stream: options.stream,
          memoryLimitMb: limit,
        }),
      );
    }
  }

  run(request: SandboxRun): Promise<SandboxOutcome> {
    const { isolation, memoryMb, timeoutMs, cancel, onEvent, ...rest } = request;
    const task: SkillTask = { ...rest, meta: { ...request.meta, deadline: Date.now() + timeoutMs } };
    const limits = { timeoutMs, ...(cancel ? { cancel } : {}) };
    if (isolation === 'in-process') {
      const controller = new AbortController();
      const outcome = this.inProcess.run(task, onEvent, controller.signal);
      return bounded(outcome, limits, (code, message) => controller.abort(new SkillError(code, message)));
    }
    const pool = this.poolFor(memoryMb);
    const { id, outcome } = pool.run(task, onEvent);
    return bounded(outcome, limits, (code, message) => {
      pool.abort(id, code, message);
      // A thread still loading cannot act on the abort yet: the grace starts once it can.
      void pool.readyFor(id).then(() => {
        const kill = setTimeout(() => {
          if (!pool.kill(id)) return;
          this.options.logger.warn(
            { execution_id: request.meta.executionId, skill_id: request.meta.skillId, reason: code },
            `sandbox thread ended: the skill ignored its signal for ${this.options.abortGraceMs} ms; the thread's other executions fail (retried as their skills allow)`,
          );
        }, this.options.abortGraceMs);
        void outcome.finally(() => clearTimeout(kill));
      });
    });
  }

  /** Settles when the sandbox threads have loaded: a job taken before would wait for them. */
  async ready(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.ready()));
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
    this.inProcess.close();
  }

  /** Whether a skill with this memory limit (skill.json memory_mb; the default when absent) can run here. */
  runsMemoryLimit(memoryMb = this.options.memoryLimitMb): boolean {
    return this.pools.has(memoryMb);
  }

  private poolFor(memoryMb = this.options.memoryLimitMb): ThreadPool {
    const pool = this.pools.get(memoryMb);
    // Every hosted skill's limit has its pool from the start.
    if (!pool) throw new Error(`no sandbox threads with a memory limit of ${memoryMb} MB`);
    return pool;
  }
}

/**
 * The outcome, or a timeout at the deadline, or canceled when the execution is canceled first:
 * `stop` tells the run to stop, with the error its skill's signal aborts with.
 */
function bounded(
  outcome: Promise<SkillOutcome>,
  { timeoutMs, cancel }: { timeoutMs: number; cancel?: Cancelable },
  stop: (code: AbortCode, message: string) => void,
): Promise<SandboxOutcome> {
  return new Promise<SandboxOutcome>((resolve) => {
    let forget = () => {};
    const end = (ended: SandboxOutcome, why?: [AbortCode, string]) => {
      clearTimeout(deadline);
      forget();
      if (why) stop(...why);
      resolve(ended);
    };
    const canceled = () =>
      end({ ok: false, canceled: true }, ['EXECUTION_CANCELED', 'The execution was canceled']);
    const deadline = setTimeout(
      () => end({ ok: false, timedOut: true }, ['EXECUTION_TIMEOUT', `Deadline of ${timeoutMs}ms reached`]),
      timeoutMs,
    );
    if (cancel) forget = cancel.onCancel(canceled);
    void outcome.then((settled) => end(settled));
  });
}
