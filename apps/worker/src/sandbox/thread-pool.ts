import { Worker } from 'node:worker_threads';
import type { ErrorBody } from '@skillrun/core';
import type { StreamLimits } from '../streaming/stream-budget';
import {
  type AbortCode,
  decodeMessages,
  encodeMessages,
  type MemoryTarget,
  type SkillEvent,
  type SkillOutcome,
  type SkillTask,
  type ThreadCommand,
  type ThreadData,
  type ThreadMessage,
} from './messages';
import { overLimit } from './off-heap-limit';

export interface ThreadPoolOptions {
  /** The bundled skill-thread entry (plain JavaScript: no loader to start in each thread). */
  threadModule: string;
  threads: number;
  /** Given to every thread when it starts. */
  memory: MemoryTarget;
  /** How much each run may stream (ctx.emit), given to every thread when it starts. */
  stream: StreamLimits;
  /**
   * Memory limit of each thread, in MB: its heap (a skill over it ends its thread), and as much
   * again in buffers outside the heap (which the thread holds to it itself: off-heap-limit.ts).
   */
  memoryLimitMb: number;
}

interface PendingTask {
  onEvent(event: SkillEvent): void;
  settle(outcome: SkillOutcome): void;
}

/** One thread and the tasks it is running. */
interface SkillThread {
  worker: Worker;
  tasks: Map<number, PendingTask>;
  /** Tasks told to stop at their deadline and not finished yet: the thread may be stuck in one. */
  aborted: Set<number>;
  /** Tasks not sent yet: they go in one message at the end of this turn of the event loop. */
  unsent: { id: number; task: SkillTask }[];
  /** Settles when the thread has loaded and listens (or has ended). */
  ready: Promise<void>;
}

/**
 * A fixed set of threads, all started up front, each running any number of executions at once on
 * one long-lived port: no thread is started, and no channel created, per execution, and memory is
 * bounded by the number of threads whatever the concurrency or the number of skills. Piscina runs
 * one abortable task per thread and has no per-task event stream, which is what this needs.
 *
 * A task goes to the least busy thread. When a thread has to be ended (a skill that ignores its
 * deadline) or dies, the other tasks on it end with a recoverable error (retried as the skill's
 * `retry` allows) and a fresh thread takes its place.
 */
export class ThreadPool {
  private readonly threads = new Set<SkillThread>();
  private readonly owners = new Map<number, SkillThread>();
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: ThreadPoolOptions) {
    for (let i = 0; i < options.threads; i++) this.spawn();
  }

  /** Starts the task at once; `outcome` settles with what it returned, threw, or the thread's end. */
  run(task: SkillTask, onEvent: (event: SkillEvent) => void): { id: number; outcome: Promise<SkillOutcome> } {
    const id = this.nextId++;
    const thread = this.leastBusy();
    const outcome = new Promise<SkillOutcome>((resolve) => {
      thread.tasks.set(id, { onEvent, settle: resolve });
    });
    this.owners.set(id, thread);
    if (thread.unsent.length === 0) setImmediate(() => this.send(thread));
    thread.unsent.push({ id, task });
    return { id, outcome };
  }

  /**
   * Sends a thread the tasks given to it this turn, in one message: under load several executions
   * start in the same turn, and each message to a thread costs a copy and a wake-up.
   */
  private send(thread: SkillThread): void {
    if (thread.unsent.length === 0 || !this.threads.has(thread)) return;
    const tasks = thread.unsent;
    thread.unsent = [];
    thread.worker.postMessage(encodeMessages({ type: 'run', tasks } satisfies ThreadCommand));
  }

  /** Aborts the task's `ctx.signal` (it may still finish, or clean up and return). */
  abort(id: number, code: AbortCode, reason: string): void {
    const thread = this.owners.get(id);
    if (!thread) return;
    thread.aborted.add(id);
    // The task must have reached the thread before its abort does.
    this.send(thread);
    thread.worker.postMessage(encodeMessages({ type: 'abort', id, code, reason } satisfies ThreadCommand));
  }

  /** Settles when every thread of the pool has loaded and can run tasks. */
  async ready(): Promise<void> {
    await Promise.all([...this.threads].map((thread) => thread.ready));
  }

  /**
   * Settles when the thread the task runs on has loaded (at once when the task has ended): only
   * then can it act on an abort, so a grace given to the task counts from there.
   */
  async readyFor(id: number): Promise<void> {
    await this.owners.get(id)?.ready;
  }

  /**
   * Ends the thread the task still runs on (a busy loop cannot be stopped any other way); false
   * when the task had ended by then.
   */
  kill(id: number): boolean {
    const thread = this.owners.get(id);
    if (thread)
      this.retire(thread, 'it was ended because an execution on it ignored its deadline or its cancel');
    return thread !== undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    const threads = [...this.threads];
    this.threads.clear();
    await Promise.all(threads.map(({ worker }) => worker.terminate()));
  }

  /** A thread that may be stuck past a deadline gets nothing new while another one can take it. */
  private leastBusy(): SkillThread {
    let best: SkillThread | undefined;
    const load = (thread: SkillThread) => thread.tasks.size + (thread.aborted.size > 0 ? 1e6 : 0);
    for (const thread of this.threads) {
      if (!best || load(thread) < load(best)) best = thread;
    }
    // Threads are replaced as they end: the set is only empty once the pool is closed.
    if (!best) throw new Error('the sandbox is closed');
    return best;
  }

  private spawn(): void {
    const { threadModule, memoryLimitMb, memory, stream } = this.options;
    const data: ThreadData = { memory, stream, offHeapLimitBytes: memoryLimitMb * 1024 * 1024 };
    const worker = new Worker(threadModule, {
      execArgv: [],
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: memoryLimitMb },
    });
    let loaded = () => {};
    const ready = new Promise<void>((resolve) => {
      loaded = resolve;
    });
    const thread: SkillThread = { worker, tasks: new Map(), aborted: new Set(), unsent: [], ready };
    worker.on('message', (text: string) => {
      for (const message of decodeMessages<ThreadMessage[]>(text)) {
        if (message.type === 'ready') {
          loaded();
          continue;
        }
        if (message.type === 'over-memory') {
          this.retire(thread, `it went ${overLimit(message.bytes, data.offHeapLimitBytes)}`);
          return;
        }
        const task = thread.tasks.get(message.id);
        if (!task) continue;
        if (message.type === 'event') {
          task.onEvent(message.event);
          continue;
        }
        this.finish(thread, message.id);
        task.settle(message.outcome);
      }
    });
    worker.on('error', (error) => this.retire(thread, error.message));
    worker.on('exit', (code) => this.retire(thread, `it exited with code ${code}`));
    worker.once('exit', loaded);
    this.threads.add(thread);
  }

  private finish(thread: SkillThread, id: number): void {
    thread.tasks.delete(id);
    thread.aborted.delete(id);
    this.owners.delete(id);
  }

  /** The thread is gone (or going): its tasks end with the reason, and another thread replaces it. */
  private retire(thread: SkillThread, reason: string): void {
    if (!this.threads.delete(thread)) return;
    void thread.worker.terminate();
    for (const [id, task] of thread.tasks) {
      this.finish(thread, id);
      task.settle({ ok: false, error: threadStopped(reason) });
    }
    if (!this.closed) this.spawn();
  }
}

function threadStopped(reason: string): ErrorBody {
  return {
    code: 'TOOL_EXECUTION_FAILED',
    message: `The skill's thread stopped: ${reason}`.slice(0, 1000),
    recoverable: true,
  };
}
