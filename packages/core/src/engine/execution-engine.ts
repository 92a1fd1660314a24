import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { notReplicated } from '../errors/not-replicated';
import type { QueueRegistry } from '../queue/queue-registry';
import type { Execution } from '../schemas/execution';
import type { ApprovalDecision, DecisionResult } from '../store/execution/approval-decisions';
import type { ExecutionStore } from '../store/execution/execution-store';
import type { ExecutionTransitions } from '../store/execution/execution-transitions';
import type { TransitionCall } from '../store/execution/transition-script';
import type { SlotHandover } from '../store/flow/slot-handover';
import type { RedisKeys } from '../store/keys/redis-keys';
import type { HandInResult } from '../store/task-store';
import { type DurabilityOptions, type DurableWrites, durableWrites } from './durable-writes';
import { ExecutionCancels } from './execution-cancels';
import { ExecutionIds } from './execution-ids';
import { ExecutionLauncher } from './execution-launcher';
import { type PlacementNeeds, placeExecution } from './execution-placement';
import type { DebouncedLaunch, LaunchOutcome, LaunchRequest } from './launch-request';
import type { ReadSession } from './read-session';
import { type RunIds, runIdCandidates, runIdsOf } from './schedule-run-ids';

export interface ExecutionEngineOptions {
  /** The process's connection, and what it built on it: reads, and the writes without replicas. */
  redis: Redis;
  keys: RedisKeys;
  store: ExecutionStore;
  queues: QueueRegistry;
  /** Hands on the concurrency slots of an execution the engine cancels. */
  handover: SlotHandover;
  /** RETRY_BACKOFF_MS: a job's first retry delay, unless its skill says otherwise. */
  retryBackoffMs: number;
  /**
   * The store on the connection a worker's ends of jobs go down, when that is not `redis` (a
   * cluster's: see the worker's WorkerShared.endings): its outcomes are sent there (`outcomes`), in
   * the same write as BullMQ's end of their job.
   */
  endings?: ExecutionStore;
  /**
   * ACK_REPLICAS and what its writes' own connection needs (a gateway's, a worker's); none: every
   * write is answered, and every status told, once the master has it.
   */
  durability?: DurabilityOptions;
}

/**
 * The status moves a process makes itself: a worker's as an attempt goes (progress and metadata
 * reported, a retry, its
 * end written as its job ends: `completeCall`/`failCall` then `send`), a sweep's or a stall's end
 * (`fail`), and the end a task's hand-in writes (built here, sent by `handIn`). Each is one atomic
 * write of the store's (ExecutionTransitions), sent on the process's connection and answered once
 * the master has it: a status is confirmed on the replicas when it is read to be told (readSession),
 * not when it is written, which keeps every WAIT off an attempt's path. A cancel is `cancel`'s.
 */
export type StatusMoves = Pick<
  ExecutionTransitions,
  'report' | 'retrying' | 'fail' | 'completeCall' | 'failCall' | 'send'
>;

/** Where a composite's step goes: its id, and whether it runs apart from its parent's job. */
export interface StepPlace {
  executionId: string;
  /** On another hash tag than its parent: no BullMQ child, its end wakes the parent (StepWakeups). */
  apart: boolean;
}

/**
 * An execution's life behind one door: where it is placed (its id), its launch (one, many, or
 * debounced), its cancel, a task's hand-in, and whether what is read of it may be told. Durability
 * (ACK_REPLICAS) lives here: each write a caller is answered for is confirmed on the replicas
 * before it resolves, each status read past `accepted` before it is told, so that no caller
 * confirms anything or chooses a connection. What the engine leaves to BullMQ (the queues, their
 * workers, retries and delays) and to the store (each atomic transition, which `transitions`
 * sends) is said in docs/architecture.md.
 */
export class ExecutionEngine {
  /** The status moves a process makes itself (the store's transitions: StatusMoves). */
  readonly transitions: StatusMoves;
  /** Where a worker sends the outcomes it built with `transitions`, just before BullMQ ends their job. */
  readonly outcomes: Pick<StatusMoves, 'send'>;
  private readonly durable: DurableWrites;
  private readonly ids: ExecutionIds;
  /** Schedules' vshards, in a turn of their own (see placeSchedule). */
  private readonly schedules: ExecutionIds;
  /** Batches' vshards, in a turn of their own (see placeBatch). */
  private readonly batches: ExecutionIds;
  private readonly launcher: ExecutionLauncher;
  /** A composite's steps' launcher: on the process's connection, never confirmed (see launch). */
  private readonly steps: ExecutionLauncher;
  private readonly cancels: ExecutionCancels;

  constructor(private readonly options: ExecutionEngineOptions) {
    const { redis, keys, store, queues, handover } = options;
    this.transitions = store.transitions;
    this.outcomes = (options.endings ?? store).transitions;
    this.durable = durableWrites(options.durability, { redis, store, queues, keys });
    this.ids = new ExecutionIds(keys.shards);
    this.schedules = new ExecutionIds(keys.shards);
    this.batches = new ExecutionIds(keys.shards);
    const { durable } = this;
    this.launcher = new ExecutionLauncher({
      redis: durable.redis,
      store: durable.store,
      queues: durable.queues,
      retryBackoffMs: options.retryBackoffMs,
      ack: durable.ack,
    });
    this.steps = new ExecutionLauncher({ redis, store, queues, retryBackoffMs: options.retryBackoffMs });
    this.cancels = new ExecutionCancels({
      redis,
      keys,
      store: durable.store,
      queues: durable.queues,
      handover,
    });
  }

  /** A new execution's id, which says where its keys are (placeExecution). */
  place(needs: PlacementNeeds): string {
    return placeExecution(this.ids, needs);
  }

  /**
   * A composite step's place: on its parent's vshard, a BullMQ child of its parent (they share a
   * slot); a gated one on its skill's home, with its flow control's keys, apart from its parent
   * when that is another vshard.
   */
  placeStep(parentId: string, skillId: string, gated: boolean): StepPlace {
    const apart = gated && !this.ids.atHome(parentId, skillId);
    return { executionId: apart ? this.ids.pinned(skillId) : this.ids.inherit(parentId), apart };
  }

  /** Whether a step was placed apart from its composite (on another hash tag: no BullMQ child). */
  apart(compositeId: string, stepId: string): boolean {
    return !this.ids.together(compositeId, stepId);
  }

  /**
   * The vshard a schedule keeps for its runs: the next active one in a turn of schedules' own (not
   * moved on by executions), so that schedules made one after another spread over every vshard;
   * none at one shard.
   */
  placeSchedule(): number | undefined {
    return this.schedules.nextVshard();
  }

  /** A schedule's due time's ids, the same at every try: derived, and on `vshard` (its schedule's) when given. */
  scheduleRunIds(scheduleId: string, dueAt: number, vshard?: number): RunIds {
    return runIdsOf(this.options.keys.shards, scheduleId, dueAt, vshard);
  }

  /** Every id a try may have launched a due time's execution under (see placeExecution's pinning). */
  scheduleRunCandidates(ids: RunIds, skillId: string): string[] {
    return runIdCandidates(this.options.keys.shards, ids, skillId);
  }

  /**
   * A new batch's id and the vshard its items go on (LaunchOrigin's `batch-item`): the next active
   * one in a turn of batches' own, so that its items' ends renew it in their own slot; a legacy id
   * and none at one shard, every key under the prefix as before sharding.
   */
  placeBatch(): { batchId: string; vshard?: number } {
    const vshard = this.batches.nextVshard();
    if (vshard === undefined) return { batchId: randomUUID() };
    return { batchId: this.options.keys.shards.mintId(vshard), vshard };
  }

  /**
   * Starts an execution, answered once it holds (ExecutionLauncher.launch). A composite's step is
   * answered once the master has it, as the worker's own writes are, whatever ACK_REPLICAS says: no
   * caller is told of it, and one a failover loses is found missing by its composite, which launches
   * it again.
   */
  launch(request: LaunchRequest): Promise<Execution> {
    const launcher = request.origin?.kind === 'step' ? this.steps : this.launcher;
    return launcher.launch(request);
  }

  /** Starts many in one write and one round trip, each accepted or refused on its own. */
  launchMany(requests: LaunchRequest[]): Promise<LaunchOutcome[]> {
    return this.launcher.launchAll(requests);
  }

  /** Starts a debounced execution, or joins the one its key has open. */
  launchDebounced(request: LaunchRequest, delayMs: number): Promise<DebouncedLaunch> {
    return this.launcher.launchDebounced(request, delayMs);
  }

  /**
   * Cancels an execution that has not ended, with its steps (ExecutionCancels), answered once that
   * is on the replicas: true when this call ended it, false when it had ended already. `canceled`
   * hears of each execution of the tree it ended. Asked again, it answers what holds then.
   */
  async cancel(
    execution: Execution,
    message: string,
    canceled: (execution: Execution) => void = () => {},
  ): Promise<boolean> {
    const { ack } = this.durable;
    const session = ack.session;
    const ended = await this.cancels.cancelTree(execution, message, canceled);
    if (ended && !(await ack.confirm(session))) throw notReplicated('cancel', false);
    return ended;
  }

  /**
   * Hands a task's end in (`end`: the transition to make), unless another caller than `holder`
   * claimed it; resolves once the end is on the replicas. Its job waits parked until its deadline:
   * brought forward once the end is made, a worker ends it at once (and BullMQ moves on a composite
   * waiting for it). A job not parked yet is seen to by its worker, which looks at the record again
   * once it has parked it.
   */
  async handIn(execution: Execution, end: TransitionCall, holder: string): Promise<HandInResult> {
    const { ack, tasks } = this.durable;
    const session = ack.session;
    const written = await tasks.handIn(end, holder);
    if (written !== 'applied') return written;
    const { skill_id, skill_version, priority, execution_id } = execution;
    const queue = this.options.queues.for(skill_id, skill_version, priority, execution_id);
    const job = await queue.getJob(execution_id).catch(() => undefined);
    await job?.promote().catch(() => {});
    // The record's end is what must survive.
    if (!(await ack.confirm(session))) throw notReplicated('task hand-in', false);
    return written;
  }

  /**
   * Decides an execution's approval (ApprovalDecisions: exactly one decision is made), resolved once
   * it is on the replicas. Approved, its job (held in the delayed set until the approval's deadline)
   * is brought forward, or moved to its scheduled start if that is later; rejected or timed out, its
   * job is removed, and nothing runs; a composite's step's is brought forward instead, to be let go
   * by a worker (the record has ended), so that its end reaches the composite that waits for it.
   * 'decided' when another decision or an end came first.
   */
  async decide(execution: Execution, decision: ApprovalDecision): Promise<DecisionResult> {
    const { ack, store } = this.durable;
    const session = ack.session;
    const written = await store.approvals.decide(execution.execution_id, decision);
    if (written !== 'applied') return written;
    const { skill_id, skill_version, priority, execution_id } = execution;
    const { queues } = this.options;
    // A worker that takes the job meanwhile (its deadline come) reads the record, decided: it runs it
    // or lets it go as the decision says. A skill registered from elsewhere has its job on the remote queue.
    const job =
      (await queues
        .for(skill_id, skill_version, priority, execution_id)
        .getJob(execution_id)
        .catch(() => undefined)) ??
      (await queues
        .remote(priority, execution_id)
        .getJob(execution_id)
        .catch(() => undefined));
    if (decision.state !== 'approved') {
      await (execution.parent ? job?.promote() : job?.remove())?.catch(() => {});
    } else {
      const startsIn = Date.parse(execution.timestamps.scheduled_for ?? '') - Date.now();
      await (startsIn > 0 ? job?.changeDelay(startsIn) : job?.promote())?.catch(() => {});
    }
    if (!(await ack.confirm(session))) throw notReplicated('approval', false);
    return written;
  }

  /**
   * A read's session, taken before executions are read to be told: any status past `accepted` is
   * told once what this process read is on the replicas (a worker writes it without waiting for
   * them: one a failover undoes would be told, then undone), and only if the writes' connection
   * kept its master since the session began; one confirmation covers every execution read.
   * Without ACK_REPLICAS, told at once (no round trip).
   */
  readSession(): ReadSession {
    const { ack } = this.durable;
    const session = ack.session;
    return {
      mayTell: async (...executions) =>
        executions.every(({ status }) => status === 'accepted' || status === 'awaiting_approval') ||
        ack.confirmRead(session),
    };
  }

  /** Closes the writes' own connection, if they have one. */
  close(): Promise<void> {
    return this.durable.close();
  }
}
