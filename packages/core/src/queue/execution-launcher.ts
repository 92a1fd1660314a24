import type { Job, JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { notReplicated } from '../errors/not-replicated';
import { coalesceWrites } from '../redis/coalesce-writes';
import { RedisUnavailable } from '../redis/redis-unavailable';
import { refusesCommands } from '../redis/refuses-commands';
import type { ReplicaAck } from '../redis/replica-ack';
import type { Execution } from '../schemas/execution';
import type { Priority } from '../schemas/invocation-request';
import type { JobPayload } from '../schemas/job-payload';
import type { SkillDefinition } from '../schemas/skill-definition';
import type { RecordExtras } from '../store/execution/execution-record';
import type { ExecutionStore } from '../store/execution/execution-store';
import { isGated } from '../store/flow/concurrency-gate';
import type { QueueRegistry } from './queue-registry';
import { dueAt, type ScheduledStart } from './scheduled-start';
import { type QueuePlace, skillJobOptions } from './skill-queue';

export interface LaunchRequest {
  payload: JobPayload;
  skill: Pick<SkillDefinition, 'name' | 'version' | 'retry' | 'concurrency'>;
  requestedVersion?: string;
  /** The composite's job that waits for this one: BullMQ moves it back to wait when this one ends. */
  parentJob?: { id: string; queue: string };
  /** Concurrency quotas the execution already holds a slot in (freed when it ends, or if this fails). */
  slots?: string[];
  /** The execution this one replays. */
  replayOf?: string;
  /** The schedule this execution is a run of. */
  scheduleId?: string;
  /** Where fair share puts it in its queue (skill-queue.ts); in order when absent. */
  place?: QueuePlace;
  /** A skill registered from elsewhere: a worker calls its provider (the remote queue). */
  remote?: boolean;
  /** The first retry's delay, when not RETRY_BACKOFF_MS (a registered skill's endpoint.retry says). */
  retryBackoffMs?: number;
  /** Which webhooks hear of it, and whether its changes are announced from the start (see RecordExtras). */
  notify?: Pick<RecordExtras, 'hook' | 'webhook_id' | 'watched'>;
  /** The batch it is started in (POST /batches). */
  batchId?: string;
  /** When a delayed execution starts: its job waits in BullMQ's delayed set until then. */
  start?: ScheduledStart;
}

/** What a debounced launch came to: a new execution, or the one its key had open (`joined`). */
export interface DebouncedLaunch {
  execution: Execution;
  joined: boolean;
}

/** What one launch of a bulk came to: the execution, or why it does not exist. */
export type LaunchOutcome = { execution: Execution } | { refused: unknown };

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

/** What a launch that failed left: nothing, or an execution after all. */
type Fate = 'withdrawn' | 'launched' | 'unknown';

/**
 * How long a failed launch's fate is asked for while Redis does not answer: long enough for a
 * Redis restarted from its append-only file to be back on the connection (whose reconnects are at
 * most 2 s apart). A launch Redis wrote to its file just before it went away is in the restarted
 * Redis: asked for a second only, the gateway answered 503 for it, and it ran.
 */
const SETTLE_MS = 8000;
/** Pauses between those questions; the last one repeats. */
const SETTLE_PAUSES_MS = [100, 300, 600, 1000, 2000];
/** Why a launch on a connection that refuses commands failed (see refusesCommands). */
const NOT_SENT = 'Redis is not connected: the launch was not sent';

/**
 * Starts an execution: its record, then its job on the skill version's queue, sent down the same
 * connection in one write and one round trip (Redis stores the record first, so status is readable
 * as soon as the job can run). Used by the gateway for invocations and by workers for a composite's steps.
 */
export class ExecutionLauncher {
  constructor(private readonly deps: LauncherDeps) {}

  /** Nothing is left behind if it fails (its connection bounds the round trip: REDIS_TIMEOUT_MS in the gateway). */
  async launch(request: LaunchRequest): Promise<Execution> {
    // Nothing sent, nothing to take back: failed at once, not after asking Redis for its fate. Not
    // even the job: a queue first used now would hold it until Redis is back, then add it.
    if (refusesCommands(this.deps.redis)) throw new RedisUnavailable(NOT_SENT);
    const { payload, skill, parentJob } = request;
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
    const [outcome] = await this.settled([{ request, queue, written: Promise.all([record, job]), session }]);
    if (outcome && 'execution' in outcome) return outcome.execution;
    throw outcome?.refused;
  }

  /**
   * Starts many executions in one write and one round trip: every record first, then the jobs,
   * one BullMQ addBulk per queue (its jobs' order kept), so that what a single launch costs twice
   * a batch costs once. Each launch fails or not on its own, with the single launch's guarantee:
   * one that is refused does not exist (its fate asked of Redis when the write failed). A
   * composite's steps (`parentJob`) are launched one by one, not here.
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
   * job's delay moved on by each), a leading one at once.
   */
  async launchDebounced(request: LaunchRequest, delayMs: number): Promise<DebouncedLaunch> {
    if (refusesCommands(this.deps.redis)) throw new RedisUnavailable(NOT_SENT);
    const trailing = request.payload.debounce?.mode === 'trailing';
    const launch: LaunchRequest = trailing ? { ...request, start: { afterMs: delayMs } } : request;
    const { payload, skill } = launch;
    const session = this.session();
    const call = await this.deps.store.debounce.call(payload, extrasOf(launch), delayMs);
    if ('joined' in call) {
      const execution = await this.deps.store.records.get(call.joined);
      if (!execution) throw new Error(`the debounced execution ${call.joined} is gone`);
      if (trailing) await this.postpone(launch, execution, delayMs);
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
   * Moves a trailing debounced execution's start to `delayMs` from now. One past its delay already
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
    const outcomes = await Promise.all(
      launches.map(async ({ request, queue, written }): Promise<LaunchOutcome> => {
        const { execution_id: id } = request.payload;
        try {
          const [execution] = await written;
          return { execution };
        } catch (error) {
          if ((await this.settle(id, queue)) !== 'launched') return { refused: error };
          const execution = await this.deps.store.records.get(id);
          return execution ? { execution } : { refused: error };
        }
      }),
    );
    return this.confirmed(launches, outcomes);
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
      for (const { request, written } of launches) if (!request.start) void release(written, request);
      return outcomes;
    }
    return Promise.all(
      outcomes.map(async (outcome, index) => {
        const launch = launches[index];
        if (!('execution' in outcome) || !launch) return outcome;
        const fate = await this.settle(launch.request.payload.execution_id, launch.queue);
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
    const delayMs = start === undefined ? held : Math.max(dueAt(start, now) - now, held);
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

  /**
   * Takes back what a failed launch may have written, or finds that the execution exists after all.
   * Asked down the launch's own connection, so Redis answers after applying whatever of the launch
   * reached it. A job still waiting (or delayed, never taken) is removed with its record (the
   * execution never was); a job a worker holds or has held (its record past `accepted`: it retried,
   * reported progress or ended) means it runs. 'unknown' when Redis does not answer meanwhile: the launch may then still exist,
   * if it reached Redis before Redis went away.
   */
  private async settle(executionId: string, queue: Queue): Promise<Fate> {
    const deadline = Date.now() + SETTLE_MS;
    for (let asked = 0; ; asked++) {
      try {
        return await this.withdraw(executionId, queue);
      } catch {
        // Redis still away or slow: ask again after a pause, while there is time.
      }
      const pause = SETTLE_PAUSES_MS[Math.min(asked, SETTLE_PAUSES_MS.length - 1)] ?? 0;
      const pauseMs = Math.min(pause, deadline - Date.now());
      if (pauseMs <= 0) return 'unknown';
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  private async withdraw(executionId: string, queue: Queue): Promise<Fate> {
    const { store } = this.deps;
    const state = await queue.getJobState(executionId);
    if (
      state === 'waiting' ||
      state === 'prioritized' ||
      (state === 'delayed' && (await neverTaken(queue, executionId)))
    ) {
      // 0: a worker took it meanwhile. 1 removes a job that ended meanwhile too: its record says so.
      if ((await queue.remove(executionId)) === 0) return 'launched';
    } else if (state !== 'unknown') {
      return 'launched';
    }
    // Gone or removed: it ran if its record moved on (a worker writes that before BullMQ ends the job).
    if (await store.records.hasStarted(executionId)) return 'launched';
    await store.records.discard(executionId);
    return 'withdrawn';
  }
}

/** What a new execution's record holds besides its payload, from its launch. */
function extrasOf(request: LaunchRequest): RecordExtras {
  return {
    max_attempts: request.skill.retry + 1,
    ...(request.requestedVersion === undefined ? {} : { requested_version: request.requestedVersion }),
    ...(request.slots ? { slots: request.slots } : {}),
    ...(request.replayOf === undefined ? {} : { replay_of: request.replayOf }),
    ...(request.scheduleId === undefined ? {} : { schedule_id: request.scheduleId }),
    ...(request.remote ? { remote: true } : {}),
    ...(request.batchId === undefined ? {} : { batch_id: request.batchId }),
    ...(request.start === undefined ? {} : { start: request.start }),
    ...(isGated(request.skill.concurrency, request.payload.concurrency_key) ? { unadmitted: true } : {}),
    ...request.notify,
  };
}

/** Whether a delayed job is one that no worker has taken yet (not a retry waiting out its backoff). */
async function neverTaken(queue: Queue, executionId: string): Promise<boolean> {
  const job = await queue.getJob(executionId);
  return job !== undefined && job.attemptsStarted === 0;
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
