import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import type { ErrorBody } from '../../schemas/error-body';
import { type ExecutionStatus, TERMINAL_STATUSES, type TerminalStatus } from '../../schemas/execution';
import type { RedisKeys } from '../keys/redis-keys';
import { attemptErrorField } from './execution-record';
import {
  TRANSITION_LUA,
  type TransitionCall,
  type TransitionReply,
  type TransitionResult,
  transitionSettled,
} from './transition-script';

/** How an attempt that ends an execution went. */
export interface AttemptEnd {
  /** The attempt's number: 1 for the first. */
  attempt: number;
  /** Epoch ms at which it started (the execution's start, unless an earlier attempt recorded one). */
  startedAt: number;
  /** The last progress the skill reported, not yet written. */
  progress?: number;
  /** The metadata the skill last set (ctx.metadata), not yet written: the whole object as JSON. */
  metadata?: string;
  /** The worker that ran it (WORKER_ID). */
  workerId?: string;
}

/** A status that ends an execution through a failure (an error, not an output, and not a cancel). */
export type FailedStatus = Exclude<TerminalStatus, 'completed' | 'canceled'>;

const FINAL = new Set<string>(TERMINAL_STATUSES);

/** Redis' default hash-max-listpack-value: a longer value turns a hash into a table. */
const COMPACT_VALUE_BYTES = 64;

/**
 * Every move of an execution record (transition.lua, one atomic write each): forward while it runs,
 * to its end once. A record is kept for the retention period (`ttlSeconds`) after it ends. Times
 * come from `clock` (epoch ms).
 */
export class ExecutionTransitions {
  private readonly script: RedisScript<TransitionReply>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.script = redisScript(redis, 'skillrunTransition', TRANSITION_LUA);
  }

  /**
   * Changes fields of an execution that runs (it moves to `running` if it had not); refused once it
   * has ended. `startedAt`: when it started, kept from the first time it is given.
   */
  running(
    executionId: string,
    startedAt: number | undefined,
    fields: Record<string, string | number>,
  ): Promise<TransitionResult> {
    return this.send(this.call(executionId, 'running', startedAt, fields));
  }

  /**
   * An attempt failed and another follows: the record keeps the count, the first start (the
   * execution runs on, so that BullMQ's job for the next attempt is not its only trace) and, in the
   * same write, this attempt's error (the execution's `error` is only ever its last attempt's).
   */
  retrying(
    executionId: string,
    attempt: number,
    startedAt: number,
    error: ErrorBody,
    workerId: string,
  ): Promise<TransitionResult> {
    const [field, value] = attemptErrorField(attempt, error, this.clock(), workerId);
    return this.running(executionId, startedAt, { attempts: attempt, [field]: value });
  }

  /**
   * What a running skill reported (ctx.progress, ctx.metadata): its metadata replaces the record's
   * (the launch's, inherited or sent with the invocation, is where the skill's begins).
   */
  report(executionId: string, report: { progress?: number; metadata?: string }): Promise<TransitionResult> {
    return this.running(executionId, undefined, {
      ...(report.progress === undefined ? {} : { progress: report.progress }),
      ...(report.metadata === undefined ? {} : { metadata: report.metadata }),
    });
  }

  /**
   * The write that completes an execution, for the caller to send (with BullMQ's completion of the
   * job, in the worker; inside a task's hand-in, in the gateway). `outputJson`: the output as JSON
   * (the worker serializes it once, to bound its size).
   */
  completeCall(executionId: string, outputJson: string, end: AttemptEnd): TransitionCall {
    return this.endCall(executionId, 'completed', 'output', outputJson, end);
  }

  /**
   * Ends an execution that has not ended as `canceled` (a cancel request; the worker running it, if
   * any, is told apart). 'refused' when it has ended already: a terminal status never changes.
   */
  cancel(executionId: string, error: ErrorBody): Promise<TransitionResult> {
    return this.send(this.endCall(executionId, 'canceled', 'error', JSON.stringify(error), undefined));
  }

  /** `end` is absent when the execution ends without an attempt of its own (a sweep, a stall). */
  fail(
    executionId: string,
    status: FailedStatus,
    error: ErrorBody,
    end?: AttemptEnd,
  ): Promise<TransitionResult> {
    return this.send(this.failCall(executionId, status, error, end));
  }

  /**
   * fail's write, for the caller to send (with BullMQ's failure of the job, in the worker); `fields`:
   * more of the record to write with it (an approval's decision).
   */
  failCall(
    executionId: string,
    status: FailedStatus,
    error: ErrorBody,
    end?: AttemptEnd,
    fields: Record<string, string> = {},
  ): TransitionCall {
    return this.endCall(executionId, status, 'error', JSON.stringify(error), end, fields);
  }

  /**
   * The write that lets an execution awaiting its approval go on (`accepted`, with the decision's
   * `fields`), for the caller to send behind its guard (approval-decision.lua).
   */
  approvedCall(executionId: string, fields: Record<string, string>): TransitionCall {
    return this.call(executionId, 'accepted', undefined, fields);
  }

  /**
   * Sends a transition built here (completeCall, failCall) on this connection; an end's second step
   * (transitionSettled) follows.
   */
  async send(call: TransitionCall): Promise<TransitionResult> {
    return transitionSettled(this.redis, call.executionId, await this.script(call.keys, call.args));
  }

  /**
   * Ends the execution with its output or error: in the record while short enough for Redis' compact
   * hash encoding (which a single long value would turn into a table several times larger), else in
   * a STRING of its own.
   */
  private endCall(
    executionId: string,
    status: TerminalStatus,
    field: 'output' | 'error',
    outcome: string,
    end: AttemptEnd | undefined,
    fields: Record<string, string> = {},
  ): TransitionCall {
    const apart = Buffer.byteLength(outcome) > COMPACT_VALUE_BYTES;
    return this.call(
      executionId,
      status,
      end?.startedAt,
      {
        ...(apart ? {} : { [field]: outcome }),
        // updated_at of an ended execution is its completed_at: not stored twice.
        completed_at: this.clock(),
        ...(end ? { attempts: end.attempt } : {}),
        ...(end?.workerId === undefined ? {} : { worker_id: end.workerId }),
        ...(end?.progress === undefined ? {} : { progress: end.progress }),
        ...(end?.metadata === undefined ? {} : { metadata: end.metadata }),
        ...fields,
      },
      apart ? outcome : '',
    );
  }

  private call(
    executionId: string,
    status: ExecutionStatus,
    startedAt: number | undefined,
    fields: Record<string, string | number>,
    outcomeApart = '',
  ): TransitionCall {
    const changes = FINAL.has(status) ? fields : { updated_at: this.clock(), ...fields };
    const args = [
      status,
      String(this.ttlSeconds * 1000),
      executionId,
      String(startedAt ?? ''),
      outcomeApart,
      this.keys.watcherInboxes(),
      this.keys.batches(executionId),
    ];
    // A loop rather than entries().flatMap(): every ending execution comes through here.
    for (const field in changes) args.push(field, String(changes[field]));
    const keys = [
      this.keys.execution(executionId),
      this.keys.outcome(executionId),
      this.keys.notifications.stream(executionId),
      this.keys.chunks(executionId),
    ];
    return { executionId, keys, args };
  }
}
