import type { Job, JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { notReplicated } from '../errors/not-replicated';
import type { QueueRegistry } from '../queue/queue-registry';
import { dueAt } from '../queue/scheduled-start';
import { skillJobOptions } from '../queue/skill-queue';
import { coalesceWrites } from '../redis/coalesce-writes';
import { RedisUnavailable } from '../redis/redis-unavailable';
import { refusesCommands } from '../redis/refuses-commands';
import type { Execution } from '../schemas/execution';
import type { Priority } from '../schemas/invocation-request';
import type { ExecutionStore } from '../store/execution/execution-store';
import { LaunchFate } from './launch-fate';
import {
  type DebouncedLaunch,
  extrasOf,
  type LaunchOutcome,
  type LaunchRequest,
  parentJobOf,
} from './launch-request';
import type { ReplicaAck } from './replica-ack';

export interface LauncherDeps {
  /** The connection store and queues share. */
  redis: Redis;
  store: ExecutionStore;
  queues: QueueRegistry;
  retryBackoffMs: number;
  /**
   * A launch is answered only once it is on the replicas (ACK_REPLICAS): confirmed on `redis`, which
   * it must be the ReplicaAck of. Its job is held back until then, so that one not confirmed is
   * withdrawn before any worker takes it. None: answered once the master has it.
   */
  ack?: ReplicaAck;
}

/** A launch sent: its record's and its job's writes, answered together. */
interface Written {
  request: LaunchRequest;
  queue: Queue;
  /** Its record, and its job (a Job, or for a bulk every job of its queue). */
  written: Promise<[Execution, unknown]>;
  /** The connection's session (ReplicaAck) before they were sent. */
  session: number;
}

/** Why a launch on a connection that refuses commands failed (see refusesCommands). */
const NOT_SENT = 'Redis is not connected: the launch was not sent';

/**
 * Starts an execution: its record, then its job on the skill version's queue, sent down the same
 * connection in one write and one round trip (Redis stores the record first, so status is readable
 * as soon as the job can run). Used by the gateway for invocations and by workers for a composite's steps.
 */
export class ExecutionLauncher {
  private readonly fate: LaunchFate;

  constructor(private readonly deps: LauncherDeps) {
    this.fate = new LaunchFate(deps.store);
  }

  /** Nothing is left behind if it fails (its connection bounds the round trip: REDIS_TIMEOUT_MS in the gateway). */
  async launch(request: LaunchRequest): Promise<Execution> {
    // Nothing sent, nothing to take back: failed at once, not after asking Redis for its fate. Not
    // even the job: a queue first used now would hold it until Redis is back, then add it.
    if (refusesCommands(this.deps.redis)) throw new RedisUnavailable(NOT_SENT);
    const { payload, skill } = request;
    const parentJob = parentJobOf(request);
    const options = this.jobOptionsOf(request);
    const session = this.session();
    coalesceWrites(this.deps.redis);
    const record = this.record(request);
    const queue = this.queueOf(request);
    const job = queue.add(
      skill.name,
      payload,
      parentJob ? { ...options, parent: parentJob, removeDependencyOnFailure: true } : options,
    );
    const launch = { request, queue, written: Promise.all([record, job]), session };
    const [outcome] = await this.confirmed([launch], [await this.outcomeOf(launch)]);
    if (outcome && 'execution' in outcome) return outcome.execution;
    throw outcome?.refused;
  }

  /**
   * Starts many executions in one write and one round trip: every record first, then the jobs,
   * one BullMQ addBulk per queue (its jobs' order kept), so that what a single launch costs twice
   * a batch costs once. Each launch fails or not on its own, with the single launch's guarantee:
   * one that is refused does not exist (its fate asked of Redis when the write failed). A
   * composite's steps (with a parent job) are launched one by one, not here.
   */
  async launchAll(requests: LaunchRequest[]): Promise<LaunchOutcome[]> {
    if (refusesCommands(this.deps.redis))
      return requests.map(() => ({ refused: new RedisUnavailable(NOT_SENT) }));
    const session = this.session();
    coalesceWrites(this.deps.redis);
    const launches = requests.map((request) => ({
      request,
      queue: this.queueOf(request),
      record: this.record(request),
    }));
    const byQueue = new Map<Queue, LaunchRequest[]>();
    for (const { request, queue } of launches) {
      const queued = byQueue.get(queue);
      if (queued) queued.push(request);
      else byQueue.set(queue, [request]);
    }
    const jobs = new Map<Queue, Promise<unknown>>();
    for (const [queue, queued] of byQueue) {
      const bulk = queued.map((request) => ({
        name: request.skill.name,
        data: request.payload,
        opts: this.jobOptionsOf(request),
      }));
      jobs.set(queue, queue.addBulk(bulk));
    }
    return this.settled(
      launches.map(({ request, queue, record }) => ({
        request,
        queue,
        written: Promise.all([record, jobs.get(queue)]),
        session,
      })),
    );
  }

  /**
   * Launches a debounced invocation (payload.debounce): joins the execution its key has open, or
   * starts a new one, whichever process the other calls came through (ExecutionDebounce). A
   * trailing one is due `delayMs` after the last call that joined it (its record's due time and its
   * job's delay moved on by each) or its maximum delay after the first, a leading one at once.
   */
  async launchDebounced(request: LaunchRequest, delayMs: number): Promise<DebouncedLaunch> {
    if (refusesCommands(this.deps.redis)) throw new RedisUnavailable(NOT_SENT);
    const { mode, max_delay_ms: maxDelayMs = delayMs } = request.payload.debounce ?? {};
    const trailing = mode === 'trailing';
    // A new trailing execution is due delay_ms after its call, or its maximum delay if sooner.
    const launch: LaunchRequest = trailing
      ? { ...request, start: { afterMs: Math.min(delayMs, maxDelayMs) } }
      : request;
    const { payload, skill } = launch;
    const session = this.session();
    const call = await this.deps.store.debounce.call(payload, extrasOf(launch), delayMs);
    if ('joined' in call) {
      const execution = await this.deps.store.records.get(call.joined);
      if (!execution) throw new Error(`the debounced execution ${call.joined} is gone`);
      if (trailing)
        await this.postpone(launch, execution, Math.max(0, (call.dueAt ?? Date.now()) - Date.now()));
      return { execution, joined: true };
    }
    const queue = this.queueOf(launch);
    const written: Written = {
      request: launch,
      queue,
      written: Promise.all([call.created, queue.add(skill.name, payload, this.jobOptionsOf(launch))]),
      session,
    };
    const [outcome] = await this.settled([written]);
    if (outcome && 'refused' in outcome) throw outcome.refused;
    return { execution: call.created, joined: false };
  }

  /**
   * Moves a trailing debounced execution's start to `delayMs` from now (its due time, as the call
   * moved it: `delay_ms` after it, or its maximum delay after the first call). One past it already
   * (waiting for a worker), or whose job is not queued yet, keeps its time; it runs with the last
   * inputs all the same. Never fails: the call has joined it.
   */
  private async postpone(request: LaunchRequest, execution: Execution, delayMs: number): Promise<void> {
    const queue = this.queueOf(request, execution.skill_version, execution.priority, execution.execution_id);
    try {
      await (await queue.getJob(execution.execution_id))?.changeDelay(delayMs);
    } catch {
      // Not delayed any more (changeDelay refuses it), or Redis away for a moment.
    }
  }

  /**
   * What each launch came to once its writes are answered. A refusal must mean the execution does
   * not exist; but the writes may have applied all the same (their reply later than the deadline on
   * a busy event loop, or the connection lost after sending): a failed one is answered as what
   * Redis holds. Of a bulk, every launch in a queue whose addBulk failed is asked.
   */
  private async settled(launches: Written[]): Promise<LaunchOutcome[]> {
    const outcomes = await Promise.all(launches.map((launch) => this.outcomeOf(launch)));
    return this.confirmed(launches, outcomes);
  }

  /** A launch's outcome on the master; one whose write failed, as Redis has it (LaunchFate). */
  private async outcomeOf({ request, queue, written }: Written): Promise<LaunchOutcome> {
    const { execution_id: id } = request.payload;
    try {
      const [execution] = await written;
      return { execution };
    } catch (error) {
      if ((await this.fate.settle(id, queue)) !== 'launched') return { refused: error };
      const execution = await this.deps.store.records.get(id);
      return execution ? { execution } : { refused: error };
    }
  }

  /**
   * The launches that exist, once they are on the replicas (one WAIT for all of them): their jobs
   * are let go. Not confirmed in time, each is withdrawn as a failed write is, and refused whether
   * or not that could be done (said in the refusal): a 202 stands for a launch a failover keeps.
   */
  private async confirmed(launches: Written[], outcomes: LaunchOutcome[]): Promise<LaunchOutcome[]> {
    const { ack } = this.deps;
    if (!ack?.required || !outcomes.some((outcome) => 'execution' in outcome)) return outcomes;
    // Launches made together were sent in one session: the oldest is the one to confirm against.
    const session = Math.min(...launches.map((launch) => launch.session));
    if (await ack.confirm(session)) {
      for (const { request, written } of launches)
        if (!request.start && !request.approval) void release(written, request);
      return outcomes;
    }
    return Promise.all(
      outcomes.map(async (outcome, index) => {
        const launch = launches[index];
        if (!('execution' in outcome) || !launch) return outcome;
        const fate = await this.fate.settle(launch.request.payload.execution_id, launch.queue);
        return { refused: notReplicated('launch', fate === 'withdrawn') };
      }),
    );
  }

  /** The confirming connection's session now (ReplicaAck), before a launch's writes are sent. */
  private session(): number {
    return this.deps.ack?.session ?? 0;
  }

  /** The execution's record, sent now (see LaunchRequest for what it keeps). */
  private record(request: LaunchRequest): Promise<Execution> {
    return this.deps.store.records.create(request.payload, extrasOf(request));
  }

  /** Its job's options: where fair share places it, its retries, and for a delayed one its delay. */
  private jobOptionsOf(request: LaunchRequest): JobsOptions {
    const { start } = request;
    const now = Date.now();
    const held = this.deps.ack?.required ? this.deps.ack.holdMs : 0;
    const due = start === undefined ? now : dueAt(start, now);
    // One awaiting its approval waits until the approval's deadline at least (see LaunchRequest).
    const delayMs = Math.max(due - now, held, (request.approval?.deadline ?? now) - now);
    return skillJobOptions({
      executionId: request.payload.execution_id,
      priority: request.payload.priority,
      skill: request.skill,
      retryBackoffMs: request.retryBackoffMs ?? this.deps.retryBackoffMs,
      ...(request.place ? { place: request.place } : {}),
      ...(delayMs > 0 ? { delayMs } : {}),
    });
  }

  /**
   * The queue of the request's skill at `version` and `priority` (the remote one for a remote
   * skill), on execution `id`'s tag: its own by default; a joined debounced execution's may
   * differ (see postpone).
   */
  private queueOf(
    request: LaunchRequest,
    version: string = request.skill.version,
    priority: Priority = request.payload.priority,
    id: string = request.payload.execution_id,
  ): Queue {
    return request.remote
      ? this.deps.queues.remote(priority, id)
      : this.deps.queues.for(request.skill.name, version, priority, id);
  }
}

/**
 * Lets a held job go (it was delayed until its launch was confirmed). Not awaited: should it fail,
 * or be lost with a failover, the job is let go when its hold ends all the same.
 */
async function release(written: Written['written'], request: LaunchRequest): Promise<void> {
  try {
    const [, added] = await written;
    const jobs = (Array.isArray(added) ? added : [added]) as Job[];
    const job = jobs.find((each) => each.id === request.payload.execution_id);
    await job?.promote();
  } catch {
    // Released when its hold ends.
  }
}
