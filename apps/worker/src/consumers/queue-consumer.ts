import type { EventEmitter } from 'node:events';
import type { StartTaken } from '@skillrun/core/data';
import {
  delay,
  isNotConnectionError,
  Job,
  LockManager,
  type LockManagerWorkerContext,
  type Span,
  SpanKind,
  TelemetryAttributes,
  UnrecoverableError,
  Worker,
  type WorkerOptions,
} from 'bullmq';
import type { ExecutionSlots, SlotLane, SlotWait } from '../flow/execution-slots';

/**
 * Runs a job: what it answers completes the job, what it throws fails it (BullMQ's processor
 * contract). `start`: the start the job took of its queue's StartGate, if it has one.
 */
export type JobHandler = (job: Job, token: string, start?: string) => Promise<unknown>;

/**
 * How often a queue's jobs may start (a skill's rate limit), shared with other consumers: asked
 * for a start before each job is taken off the queue, holding no job meanwhile.
 */
export interface StartGate {
  /** Whether starts are limited now (the skill has a rate limit): when not, none is taken. */
  limits(): boolean;
  /** Takes a start named `start` (unique), or answers how long until one may be taken. */
  take(start: string): Promise<StartTaken>;
  /** Gives back a start that took no job (the queue had none). */
  giveBack(start: string): Promise<void>;
}

export interface QueueConsumerOptions {
  queue: string;
  /** Which waiters for a slot this queue's fetches join. */
  lane: SlotLane;
  /** The process's slots, shared by every queue it consumes. */
  slots: ExecutionSlots;
  handler: JobHandler;
  /**
   * Sends what must be written as a job ends (its outcome) just before BullMQ is asked to end it,
   * without waiting between the two: on the worker's connection, Redis runs it first. Resolves once
   * Redis has it (sent again while Redis is away): a job's end sent again waits for it.
   */
  settle(job: Job): Promise<void>;
  /**
   * Sends the job's outcome again just before its end is sent again after a lost connection, in the
   * same write (the connection answers such a command with an error rather than sending it again
   * on its own: see createRedis' callerRetries), so that the end never runs on a master that lacks
   * the outcome: one promoted over the master that took it and died with it.
   */
  settleAgain(job: Job): Promise<void>;
  /** The job's end is answered (or the job was moved): its outcome is not sent again. */
  unsettle(job: Job): void;
  /** Told of a job BullMQ gave up after it stalled too often (failed here without running it). */
  givenUp(job: Job): void;
  /** Told of each job once BullMQ has completed or failed it (not of one its handler moved). */
  ended?(job: Job): void;
  /** Asked for a start before each job is taken, when the queue's starts are limited. */
  starts?: StartGate;
  /** BullMQ's worker options; lockDuration is required, as the locks are renewed here. */
  worker: WorkerOptions & { lockDuration: number };
}

/** The end of a run: what the handler answered, or what it threw. */
type Ending = { result: unknown } | { error: Error };

/** A job taken off the queue, with the start it took of the queue's StartGate, if it has one. */
interface Taken {
  job: Job;
  start?: string;
}

/** What asking the StartGate came to: a start (none without a gate), or no start yet. */
type StartAsked = { start?: string } | { waitMs: number };

/** The longest a consumer waits for a start before asking again (one given back frees it earlier). */
const LONGEST_START_WAIT_MS = 5000;

/** Errors by which a processor says it has moved its job itself (BullMQ's own list). */
const MOVED_BY_HANDLER = new Set(['DelayedError', 'WaitingError', 'WaitingChildrenError']);

/**
 * One queue consumed by BullMQ's manual processing (a Worker without a processor), a job taken off
 * it only while one of the process's execution slots is held for it: BullMQ's own `concurrency`
 * counts per queue, and a worker hosts many queues. The slot is taken before the job is moved to
 * active, so no job is locked while it waits for one, and an idle worker elsewhere can take it.
 *
 * While the queue is dry (the last look found it empty), this waits for BullMQ's marker (a job
 * added, or a delayed one due) holding no slot, and a fetch that waited for a slot while the queue
 * went dry does not ask Redis. When a job ends, its slot carries on to the queue's next job, fetched
 * by the same call that ends it, unless the queue is dry or another queue waits for a slot.
 *
 * What BullMQ's own loop does around a processor is done here with its public parts: the locks are
 * renewed by its LockManager, stalled jobs recovered by the worker's stalled checker, each job run
 * in a `process` span that continues the producer's trace, and ended by moveToCompleted or
 * moveToFailed (which retries with the job's backoff).
 */
export class QueueConsumer {
  readonly worker: Worker;
  private readonly locks: LockManager;
  /** Each slot's chain of jobs: one job and the next ones it carries its slot to. */
  private readonly chains = new Set<Promise<void>>();
  private loop: Promise<void> | undefined;
  private slotWait: SlotWait | undefined;
  private closing = false;
  /** The last look found the queue empty. */
  private dry = false;
  /** When the next delayed job is due (0: none known), as BullMQ's answers and markers say. */
  private blockUntil = 0;
  private tokens = 0;
  private starts = 0;
  /** Ends the loop's wait (for a start, or for the marker) early: the consumer is closing. */
  private wake: (() => void) | undefined;

  constructor(private readonly options: QueueConsumerOptions) {
    // No processor: the fetches are this consumer's, BullMQ's own loop never runs.
    this.worker = new Worker(options.queue, null, options.worker);
    const { lockDuration } = options.worker;
    this.locks = new LockManager(lockContext(this.worker), {
      lockDuration,
      lockRenewTime: options.worker.lockRenewTime ?? lockDuration / 2,
      workerId: this.worker.id,
      ...(options.worker.name === undefined ? {} : { workerName: options.worker.name }),
    });
  }

  start(): void {
    this.locks.start();
    void this.worker.startStalledCheckTimer();
    this.loop = this.fetchLoop();
  }

  /** Stops fetching and waits for the jobs running to end (ending none early). */
  async close(): Promise<void> {
    this.closing = true;
    this.slotWait?.withdraw();
    this.wake?.();
    // Ends a wait for the marker (else it would last until its timeout).
    await this.worker
      .getBackend()
      .disconnectBlocking()
      .catch(() => {});
    await this.loop;
    while (this.chains.size > 0) await Promise.all(this.chains);
    await this.locks.close();
    await this.worker.close();
  }

  private async fetchLoop(): Promise<void> {
    while (!this.closing) {
      if (this.dry) await this.awaitJob();
      if (this.closing || !(await this.takeSlot())) continue;
      // The queue went dry while this waited for the slot: a look would find nothing.
      if (this.dry) {
        this.options.slots.release();
        continue;
      }
      const asked = await this.askStart();
      if ('waitMs' in asked) {
        this.options.slots.release();
        await this.waitForStart(asked.waitMs);
        continue;
      }
      const token = `${this.worker.id}:${this.tokens++}`;
      const job = await this.persist(async () =>
        this.answered(await this.worker.getBackend().moveToActive(token, this.worker.opts.name), token),
      );
      if (job) this.startChain({ job, ...asked }, token);
      else {
        this.options.slots.release();
        this.giveBack(asked.start);
      }
    }
  }

  /** A start of the queue's StartGate (none when it has no gate), or how long until one may be. */
  private async askStart(): Promise<StartAsked> {
    const gate = this.options.starts;
    if (!gate?.limits()) return {};
    const start = `${this.worker.id}:start:${this.starts++}`;
    const taken = await this.persist(() => gate.take(start));
    if (!taken) return { waitMs: 1000 };
    return taken.taken ? { start } : { waitMs: taken.waitMs };
  }

  private giveBack(start: string | undefined): void {
    if (start !== undefined) void this.options.starts?.giveBack(start).catch(() => {});
  }

  /** Waits, holding no slot, until a start may be free (or the consumer closes). */
  private async waitForStart(waitMs: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(waitMs, LONGEST_START_WAIT_MS));
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
  }

  /** Holds a slot: false if the wait was withdrawn (the consumer is closing). */
  private async takeSlot(): Promise<boolean> {
    const wait = this.options.slots.wait(this.options.lane, this);
    this.slotWait = wait;
    try {
      return await wait.granted;
    } finally {
      if (this.slotWait === wait) this.slotWait = undefined;
    }
  }

  /**
   * Waits, holding no slot, until BullMQ's marker says the queue may have a job or a delayed one is
   * due; after its drainDelay without one, the queue is looked at anyway, as BullMQ's loop does.
   */
  private async awaitJob(): Promise<void> {
    const backend = this.worker.getBackend();
    while (!this.closing) {
      const timeout = this.blockTimeout();
      if (timeout <= 0) break;
      let marker: { score: number } | null;
      try {
        // Not waited for past the start of a close: on a cluster after a failover, a wait was seen
        // never to settle once close had ended its connection (the client left closed, with no
        // node), and the worker's stop took its whole grace period.
        marker = await Promise.race([backend.waitForJob(timeout), this.closeEnds()]);
      } catch (error) {
        if (this.closing) break;
        this.report(error);
        await backend.reconnectBlocking().catch((reconnecting) => this.report(reconnecting));
        await delay(100);
        break;
      } finally {
        this.wake = undefined;
      }
      if (!marker) {
        this.blockUntil = 0;
        break;
      }
      // A marker's score is 0 for a job waiting, else when the earliest delayed job is due.
      if (this.blockUntil === 0 || marker.score < this.blockUntil) this.blockUntil = marker.score;
      if (this.blockUntil - Date.now() < 1) break;
    }
    this.dry = false;
  }

  /**
   * Settles (with no marker) when the consumer starts closing. One per wait, not one shared by
   * every wait: each race would leave a reaction on a shared promise until the close.
   */
  private closeEnds(): Promise<null> {
    return new Promise((resolve) => {
      this.wake = () => resolve(null);
    });
  }

  /** How long a wait for the marker may block, in seconds (BullMQ's own bounds). */
  private blockTimeout(): number {
    const { minimumBlockTimeout, maximumBlockTimeout } = this.worker;
    if (this.blockUntil === 0) return Math.max(this.worker.opts.drainDelay ?? 5, minimumBlockTimeout);
    const wait = this.blockUntil - Date.now();
    if (wait <= 0) return wait;
    return wait < minimumBlockTimeout * 1000
      ? minimumBlockTimeout
      : Math.min(wait / 1000, maximumBlockTimeout);
  }

  /**
   * BullMQ's answer to a fetch (moveToActive, or a job's end that fetched the next): the job it
   * moved to active, if any, and when the next delayed job is due.
   */
  private answered(answer: unknown, token: string): Job | undefined {
    if (!Array.isArray(answer)) return undefined;
    const [data, id, , delayUntil] = answer;
    this.blockUntil = Math.max(Number(delayUntil) || 0, 0);
    this.dry = !data;
    if (!data) return undefined;
    const job = Job.fromJSON(this.worker, data, id);
    job.token = token;
    return job;
  }

  /** Runs `first`, then each next job its slot carries on to; frees the slot at the end. */
  private startChain(first: Taken, token: string): void {
    const chain = (async () => {
      try {
        let taken: Taken | undefined = first;
        while (taken) taken = await this.process(taken, token);
      } catch (error) {
        this.report(error);
      } finally {
        this.options.slots.release();
      }
    })().finally(() => this.chains.delete(chain));
    this.chains.add(chain);
  }

  /** Runs one job in its `process` span and ends it; answers the next job, if its slot carries on. */
  private async process({ job, start }: Taken, token: string): Promise<Taken | undefined> {
    const next = await this.worker.trace(
      SpanKind.CONSUMER,
      'process',
      this.worker.name,
      async (span) => {
        span?.setAttributes({
          [TelemetryAttributes.WorkerId]: this.worker.id,
          [TelemetryAttributes.WorkerName]: this.worker.opts.name,
          [TelemetryAttributes.JobId]: job.id,
          [TelemetryAttributes.JobName]: job.name,
        });
        return this.end(job, token, await this.run(job, token, start));
      },
      job.opts.telemetry?.metadata,
    );
    return next;
  }

  /** Runs the handler while the job's lock is renewed; a job BullMQ gave up is failed unrun. */
  private async run(job: Job, token: string, start: string | undefined): Promise<Ending> {
    if (job.deferredFailure) return { error: new UnrecoverableError(job.deferredFailure) };
    const id = String(job.id);
    this.locks.trackJob(id, token, job.processedOn ?? Date.now());
    try {
      return { result: await this.options.handler(job, token, start) };
    } catch (error) {
      return { error: error as Error };
    } finally {
      this.locks.untrackJob(id);
    }
  }

  /**
   * Settles the job, then completes or fails it (a failure BullMQ retries is moved back, with its
   * backoff), fetching the next one in the same call when the slot carries on: the two are sent one
   * after the other and awaited together, one round trip. A job its handler moved (delayed, or
   * waiting for its children) is left where it is.
   */
  private async end(job: Job, token: string, ending: Ending): Promise<Taken | undefined> {
    const moved = 'error' in ending && MOVED_BY_HANDLER.has(ending.error.name);
    // Asked first: nothing may come between the outcome's write and BullMQ's end of the job.
    const carried = moved ? undefined : await this.carried();
    const settled = this.options.settle(job);
    if (moved) {
      await settled;
      this.options.unsettle(job);
      return undefined;
    }
    const fetchNext = carried !== undefined;
    const [answer] = await Promise.all([
      this.persist((again) => {
        // Sent again, the end goes in one write behind its outcome sent again too.
        if (again) void this.options.settleAgain(job);
        return 'error' in ending
          ? job.moveToFailed(ending.error, token, fetchNext)
          : job.moveToCompleted(ending.result, token, fetchNext);
      }, settled),
      settled,
    ]).finally(() => this.options.unsettle(job));
    if (job.deferredFailure) this.options.givenUp(job);
    else this.options.ended?.(job);
    const next = this.answered(answer, token);
    if (next) return { job: next, ...carried };
    this.giveBack(carried?.start);
    return undefined;
  }

  /**
   * Whether a job's end fetches the next job for its slot (see carries), with the start it takes
   * of the queue's StartGate: undefined when it does not, or no start is free.
   */
  private async carried(): Promise<{ start?: string } | undefined> {
    if (!this.carries()) return undefined;
    // Without a rate limit, no start to ask for: the job's end goes on without a turn of the loop.
    if (!this.options.starts?.limits()) return {};
    const asked = await this.askStart();
    return 'waitMs' in asked ? undefined : asked;
  }

  /**
   * Whether a job's end fetches the queue's next job for its slot: not while closing, not when the
   * queue was found dry, and not when another queue waits for a slot.
   */
  private carries(): boolean {
    return !this.closing && !this.dry && !this.options.slots.isWanted(this.options.lane, this);
  }

  /**
   * Calls BullMQ, again after its runRetryDelay while Redis is unreachable (as BullMQ's loop does);
   * any other error is reported and answers undefined.
   */
  private async persist<T>(
    call: (again: boolean) => Promise<T>,
    beforeAgain?: Promise<unknown>,
  ): Promise<T | undefined> {
    for (let again = false; ; again = true) {
      try {
        return await call(again);
      } catch (error) {
        if (this.closing || isNotConnectionError(error as Error)) {
          this.report(error);
          return undefined;
        }
        await delay(this.worker.opts.runRetryDelay ?? 15_000);
        // Sent again only after what must precede it (a job's outcome, written until Redis has
        // it): after a failover, on the promoted master too, the record ends before its job.
        await beforeAgain;
      }
    }
  }

  /** Errors go to the worker's `error` listeners, but for lost connections (BullMQ's own rule). */
  private report(error: unknown): void {
    if (error instanceof Error && isNotConnectionError(error)) this.worker.emit('error', error);
  }
}

/**
 * What BullMQ's LockManager needs of a worker, from the worker's public methods: the same object
 * BullMQ hands it from inside, whose declared `trace` (a promise of a value or of a promise) the
 * context's type does not accept, though a promise never resolves to a promise.
 */
function lockContext(worker: Worker): LockManagerWorkerContext {
  const events: EventEmitter = worker;
  return {
    name: worker.name,
    extendJobLocks: (jobIds, tokens, duration) => worker.extendJobLocks(jobIds, tokens, duration),
    emit: (event, ...args) => events.emit(event, ...args),
    trace: <T>(
      kind: SpanKind,
      operation: string,
      destination: string,
      callback: (span?: Span) => Promise<T> | T,
    ) => worker.trace(kind, operation, destination, callback) as Promise<T>,
  };
}
