import {
  type Execution,
  isTerminalStatus,
  type Principal,
  SkillError,
  statusNotReplicated,
  withTimeout,
} from '@skillrun/core';
import type { ExecutionEngine, ExecutionStore } from '@skillrun/core/data';
import type { ExecutionIdentity } from '../auth/execution-identity';
import type { RequestHeaders } from '../http/request-headers';
import type { EventPosition, ExecutionEvent, ExecutionEvents } from './execution-events';
import type { ExecutionWatch } from './execution-watch';
import type { ExecutionWatcher } from './execution-watcher';
import { pollingWatch } from './polling-watch';
import { readable } from './readable-execution';

export interface ExecutionReaderDeps {
  store: ExecutionStore;
  watcher: ExecutionWatcher;
  identity: ExecutionIdentity;
  /** What follow() tells: the execution's changes and chunks, in order. */
  events: ExecutionEvents;
  /** The longest a request is kept waiting (MAX_WAIT_SECONDS), whatever it asks for. */
  maxWaitSeconds: number;
  /** Whether what is read may be told: past `accepted`, once on the replicas (ACK_REPLICAS). */
  engine: Pick<ExecutionEngine, 'readSession'>;
}

/** A client's wish to be answered only once the execution changes (RFC 7240 `wait`). */
export interface Wait {
  /** How long it will wait, at most. */
  seconds: number;
  /**
   * What it waits for: `change` (status) is any change of the record, `end` (result) its outcome.
   * Starting to run is not announced (the worker does not write the record then): a wait on an
   * accepted execution ends with its first progress, its end, or a task skill's task opening
   * (open-task.lua).
   */
  until: 'change' | 'end';
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}

export interface ExecutionRead {
  skillId: string;
  executionId: string;
  /** The request's header fields: who is reading, from its credentials. */
  headers: RequestHeaders;
  wait?: Wait;
}

/** The end of an execution the request itself launched, watched since before it existed. */
export interface LaunchedWait {
  /** The execution as the launch wrote it. */
  launched: Execution;
  /** Its watch (InvocationService's `Accepted.watch`), released here. */
  watch: ExecutionWatch;
  seconds: number;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}

/** An execution followed live (ExecutionReader.follow). */
export interface ExecutionFollow {
  skillId: string;
  executionId: string;
  /** The request's header fields: who is following, from its credentials. */
  headers: RequestHeaders;
  /** Told of what came after this only; from the start when absent. */
  after?: EventPosition;
  /** Whether to tell the chunks it streams (default true). */
  chunks?: boolean;
  /** Aborts when the follower stops (it went away, or its bound passed). */
  signal: AbortSignal;
}

/** How often a follower reads an execution where it could not watch it (MAX_WAITERS): our Retry-After. */
const POLL_MS = 1000;

/** How long a follower waits for its subscription before it reads every POLL_MS instead. */
const SUBSCRIBE_TIMEOUT_MS = 5000;

export interface ExecutionAnswer {
  execution: Execution;
  /** The wait the gateway applied (capped at MAX_WAIT_SECONDS); absent when none was asked or none could be. */
  appliedWaitSeconds?: number;
}

/**
 * GET status and GET result: the execution, if it exists, belongs to this skill and may be read,
 * at once or once it changes. A waiting request reads the record again adding this gateway's watcher
 * to it (only watched records' changes are announced; the watcher's inbox is subscribed first), so no
 * change is missed in between; then it sleeps until Redis announces a change, the wait runs out, or
 * the client goes away: no gateway polls.
 */
export class ExecutionReader {
  constructor(private readonly deps: ExecutionReaderDeps) {}

  /**
   * The execution, as `answer` finds it; past `accepted`, only once the replicas have what was read
   * (ACK_REPLICAS): what they do not confirm in time is answered 503, to be asked again (after a
   * failover it may be back where the replicas had it).
   */
  async read(request: ExecutionRead): Promise<ExecutionAnswer> {
    const session = this.deps.engine.readSession();
    const answer = await this.answer(request);
    if (!(await session.mayTell(answer.execution))) {
      throw statusNotReplicated();
    }
    return answer;
  }

  private async answer({ skillId, executionId, headers, wait }: ExecutionRead): Promise<ExecutionAnswer> {
    const { execution: first, principal } = await this.deps.identity.read(skillId, executionId, headers);
    if (wait === undefined) return { execution: first };
    const seconds = Math.min(wait.seconds, this.deps.maxWaitSeconds);
    if (seconds === 0 || isTerminalStatus(first.status)) {
      return { execution: first, appliedWaitSeconds: seconds };
    }
    const watch = this.deps.watcher.watch(executionId);
    // Past MAX_WAITERS the request is answered at once rather than refused.
    if (!watch) return { execution: first };
    try {
      const again = () => this.readAgain(skillId, executionId, principal);
      const watching = () =>
        this.readAgain(skillId, executionId, principal, { watcher: this.deps.watcher.id });
      // A subscription still not in place when the wait would end (the subscriber connection may
      // be connecting on a loaded machine) leaves the request answered without its wait.
      // One bound for the whole wait: the subscription's time counts against it.
      const until = Date.now() + seconds * 1000;
      const subscribed = await withTimeout(watch.subscribed, seconds * 1000).then(
        () => true,
        () => false,
      );
      if (!subscribed) return { execution: await again() };
      let current = await watching();
      if (!answers(wait.until, first, current)) {
        const wanted = wait.until === 'end' ? isTerminalStatus : () => true;
        await watch.until(wanted, Math.max(0, until - Date.now()), wait.signal);
        // Nobody is left to answer when the client went away.
        if (!wait.signal.aborted) {
          current = readable(await this.recordAfter(watch, executionId), skillId, executionId, principal);
        }
      }
      return { execution: current, appliedWaitSeconds: seconds };
    } finally {
      watch.release();
    }
  }

  /**
   * An execution this request may read, followed live: its changes and the chunks it streams, in
   * order, until it ends or `signal` aborts (ExecutionEvents), woken by Redis. Where this gateway
   * keeps MAX_WAITERS already, or the subscription is late, it is read every POLL_MS instead: the
   * follower is slower, never refused. EXECUTION_NOT_FOUND as for a read.
   */
  async *follow(request: ExecutionFollow): AsyncGenerator<ExecutionEvent, void, undefined> {
    const { skillId, executionId, headers, signal } = request;
    const { principal } = await this.deps.identity.read(skillId, executionId, headers);
    const watch = this.deps.watcher.watch(executionId);
    try {
      const subscribed =
        watch !== null &&
        (await withTimeout(watch.subscribed, SUBSCRIBE_TIMEOUT_MS).then(
          () => true,
          () => false,
        ));
      yield* this.deps.events.follow({
        skillId,
        executionId,
        principal,
        after: request.after ?? { changedAt: 0, seq: 0 },
        watch: subscribed ? watch : pollingWatch(POLL_MS),
        watcherId: this.deps.watcher.id,
        ...(request.chunks === undefined ? {} : { chunks: request.chunks }),
        signal,
      });
    } finally {
      watch?.release();
    }
  }

  /**
   * POST invoke's wait (Prefer: wait): the end of the execution this request launched. Its record
   * announced every change to `watch` from its creation, and this request may read it, so nothing
   * is read before the wait, nor after it when the end's announcement came (it carries the record):
   * on the path of an execution's whole round trip, no read of the record or of BullMQ's job.
   */
  async endOf({ launched, watch, seconds, signal }: LaunchedWait): Promise<ExecutionAnswer> {
    // Before the end is announced: the announcement is what is read.
    const session = this.deps.engine.readSession();
    try {
      const applied = Math.min(seconds, this.deps.maxWaitSeconds);
      await watch.until(isTerminalStatus, applied * 1000, signal);
      if (signal.aborted) return { execution: launched, appliedWaitSeconds: applied };
      const record = await this.recordAfter(watch, launched.execution_id);
      // Gone only if it ended and its retention ran out meanwhile: what the launch saw is all there
      // is. An end the replicas do not confirm is not told: the launch is answered as it was.
      const ended = record?.execution;
      if (!ended || !(await session.mayTell(ended))) {
        return { execution: launched, appliedWaitSeconds: applied };
      }
      return { execution: ended, appliedWaitSeconds: applied };
    } finally {
      watch.release();
    }
  }

  /**
   * Waits until an execution ends, `untilMs` (epoch ms) passes or `signal` aborts, without reading
   * it for anyone: for a request that waits on many executions whose access it checked for them all
   * (a batch's), one watch at a time. False when this gateway could not wait (MAX_WAITERS, or no
   * subscription in time): the caller then answers what it read.
   */
  async waitForEnd(executionId: string, untilMs: number, signal: AbortSignal): Promise<boolean> {
    const watch = this.deps.watcher.watch(executionId);
    if (!watch) return false;
    try {
      const subscribed = await withTimeout(watch.subscribed, Math.max(0, untilMs - Date.now())).then(
        () => true,
        () => false,
      );
      if (!subscribed) return false;
      const record = await this.deps.store.records.read(executionId, { watcher: this.deps.watcher.id });
      if (record && !isTerminalStatus(record.execution.status)) {
        await watch.until(isTerminalStatus, Math.max(0, untilMs - Date.now()), signal);
      }
      return true;
    } finally {
      watch.release();
    }
  }

  /**
   * The inputs an execution was started with (after defaults, coercion and migration), read with the
   * same access as its status: the console shows them beside the output.
   */
  async inputs({
    skillId,
    executionId,
    headers,
  }: Omit<ExecutionRead, 'wait'>): Promise<Record<string, unknown>> {
    await this.deps.identity.read(skillId, executionId, headers);
    const inputs = await this.deps.store.records.inputsOf(executionId);
    if (inputs === null) {
      throw new SkillError('EXECUTION_NOT_FOUND', `No execution "${executionId}" of skill "${skillId}"`);
    }
    return inputs;
  }

  /**
   * The record once a wait is over: as the announcement of its end carried it when one came (no
   * read), else as Redis has it now.
   */
  private recordAfter(watch: ExecutionWatch, executionId: string) {
    const { ending } = watch;
    const { store } = this.deps;
    return ending === undefined
      ? store.records.read(executionId)
      : store.watchers.announced(executionId, ending);
  }

  private async readAgain(
    skillId: string,
    executionId: string,
    principal: Principal | undefined,
    options: { watcher?: string } = {},
  ) {
    const record = await this.deps.store.records.read(executionId, options);
    return readable(record, skillId, executionId, principal);
  }
}

/** Whether what is read now answers a wait that began with `first`. */
function answers(until: Wait['until'], first: Execution, current: Execution): boolean {
  if (isTerminalStatus(current.status)) return true;
  return until === 'change' && JSON.stringify(current) !== JSON.stringify(first);
}
