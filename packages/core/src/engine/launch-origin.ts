import type { ForkPoint } from '../schemas/execution';
import type { StepEntry } from '../store/execution/execution-record';

/**
 * Where a launch came from: what its record names (`batch_id`, `schedule_id`, `replay_of`), and
 * what besides its skill decides its place (ExecutionEngine.place). A debounced or gated launch is
 * not an origin of its own: any of these may be one (its payload says so), and is placed on its
 * skill's home whatever it came from.
 */
export type LaunchOrigin =
  /** POST invoke, an agent's call: placed on the next active vshard. */
  | { kind: 'invoke' }
  /**
   * An item of a batch (POST /batches): on the batch's vshard when the batch has one (a sharded
   * batch), so that the end of each renews the batch in its own slot.
   */
  | { kind: 'batch-item'; batchId: string; vshard?: number }
  /**
   * A schedule's run: the id its due time gives it, the same at every try (the run's exactly-once
   * guard), under the prefix (`executionId`) and, above one shard, on the schedule's vshard
   * (`shardedExecutionId`).
   */
  | { kind: 'schedule-run'; scheduleId: string; executionId: string; shardedExecutionId?: string }
  /**
   * A replay of an execution (POST replay); a composite's rerun from a step (`fork`) starts with
   * the steps it reuses (attempt 0) and names where it forked from.
   */
  | { kind: 'replay'; replayOf: string; fork?: { from: ForkPoint; reused: StepEntry[] } }
  /**
   * A composite's step: the BullMQ child of its parent's job (`parentJob`), which BullMQ moves back
   * to wait when the step ends; none when it runs apart from its parent (ExecutionEngine.placeStep).
   */
  | { kind: 'step'; parentJob?: { id: string; queue: string } };

/** The origins of an invocation (InvocationService): every one but a composite's step. */
export type InvocationOrigin = Exclude<LaunchOrigin, { kind: 'step' }>;
