import type { Redis } from 'ioredis';
import type { RedisKeys } from '../keys/redis-keys';
import { ApprovalDecisions } from './approval-decisions';
import { AttemptDeadlines } from './attempt-deadlines';
import { ExecutionBudgets } from './execution-budgets';
import { ExecutionChunks } from './execution-chunks';
import { ExecutionDebounce } from './execution-debounce';
import { ExecutionIndex } from './execution-index';
import { ExecutionRecords } from './execution-records';
import { ExecutionSteps } from './execution-steps';
import { ExecutionTransitions } from './execution-transitions';
import { ExecutionUsage } from './execution-usage';
import { ExecutionWatchers } from './execution-watchers';
import { RemoteStates } from './remote-states';

export interface ExecutionStoreOptions {
  /** Epoch ms (Date.now by default). */
  clock?: () => number;
  /**
   * Told of each execution a reader ended as a timeout (past its queue timeout, not started), so
   * that the concurrency slots it may hold go on (SlotHandover.ended). Its failure is not the read's.
   */
  expired?: (executionId: string) => Promise<void>;
}

/**
 * The executions in Redis, by aspect, all over the same record (one HASH per execution, see
 * redis-keys.ts): each feature reaches for the aspect it needs. A record is kept while its execution
 * is not final and for the retention period (`ttlSeconds`) after it ends. Times come from `clock`
 * (epoch ms).
 */
export class ExecutionStore {
  /** Every move of a record: forward while it runs, to its end once (one atomic write each). */
  readonly transitions: ExecutionTransitions;
  /** The record written when an execution is accepted, and read as the protocol shows it. */
  readonly records: ExecutionRecords;
  /** Who hears of an execution's changes: watchers waiting for it, callers' event streams. */
  readonly watchers: ExecutionWatchers;
  /** A composite's steps. */
  readonly steps: ExecutionSteps;
  /** The tokens an execution spent. */
  readonly usage: ExecutionUsage;
  /** What execution trees with a budget spent of it. */
  readonly budgets: ExecutionBudgets;
  /** Where a call to a remote provider stands. */
  readonly remote: RemoteStates;
  /** The deadline of a composite's attempt. */
  readonly deadlines: AttemptDeadlines;
  /** The executions of each hour, for listings. */
  readonly index: ExecutionIndex;
  /** Debounced invocations: the one execution a debounce key has open. */
  readonly debounce: ExecutionDebounce;
  /** The output a skill streams as it runs (ctx.emit), chunk by chunk. */
  readonly chunks: ExecutionChunks;
  /** The approvals executions wait for: listed while pending, decided once. */
  readonly approvals: ApprovalDecisions;

  constructor(redis: Redis, keys: RedisKeys, ttlSeconds: number, options: ExecutionStoreOptions = {}) {
    const { clock = Date.now, expired } = options;
    this.transitions = new ExecutionTransitions(redis, keys, ttlSeconds, clock);
    this.index = new ExecutionIndex(redis, keys, ttlSeconds);
    this.records = new ExecutionRecords(redis, keys, this.index, this.transitions, clock, expired);
    this.watchers = new ExecutionWatchers(redis, keys, this.records);
    this.steps = new ExecutionSteps(redis, keys, this.transitions);
    this.usage = new ExecutionUsage(redis, keys);
    this.budgets = new ExecutionBudgets(redis, keys, ttlSeconds, clock);
    this.remote = new RemoteStates(redis, keys, this.transitions);
    this.deadlines = new AttemptDeadlines(redis, keys);
    this.debounce = new ExecutionDebounce(redis, keys, this.index, clock);
    this.chunks = new ExecutionChunks(redis, keys);
    this.approvals = new ApprovalDecisions(redis, keys, this.transitions, clock);
  }
}
