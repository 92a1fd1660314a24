import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { coalesceWrites } from '../redis/coalesce-writes';
import { refusesCommands } from '../redis/refuses-commands';
import type { Execution } from '../schemas/execution';
import type { JobPayload } from '../schemas/job-payload';
import type { SkillDefinition } from '../schemas/skill-definition';
import type { RecordExtras } from '../store/execution/execution-record';
import type { ExecutionStore } from '../store/execution/execution-store';
import type { QueueRegistry } from './queue-registry';
import { type QueuePlace, skillJobOptions } from './skill-queue';

export interface LaunchRequest {
  payload: JobPayload;
  skill: Pick<SkillDefinition, 'name' | 'version' | 'retry'>;
  requestedVersion?: string;
  /** The composite's job that waits for this one: BullMQ moves it back to wait when this one ends. */
  parentJob?: { id: string; queue: string };
  /** Concurrency quotas the execution already holds a slot in (freed when it ends, or if this fails). */
  slots?: string[];
  /** The execution this one replays. */
  replayOf?: string;
  /** Where fair share puts it in its queue (skill-queue.ts); in order when absent. */
  place?: QueuePlace;
  /** A skill registered from elsewhere: a worker calls its provider (the remote queue). */
  remote?: boolean;
  /** The first retry's delay, when not RETRY_BACKOFF_MS (a registered skill's endpoint.retry says). */
  retryBackoffMs?: number;
  /** Which webhooks hear of it, and whether its changes are announced from the start (see RecordExtras). */
  notify?: Pick<RecordExtras, 'hook' | 'webhook_id' | 'watched'>;
}

export interface LauncherDeps {
  /** The connection store and queues share. */
  redis: Redis;
  store: ExecutionStore;
  queues: QueueRegistry;
  retryBackoffMs: number;
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
    if (refusesCommands(this.deps.redis)) throw new Error(NOT_SENT);
    const { payload, skill, parentJob } = request;
    const options = skillJobOptions({
      executionId: payload.execution_id,
      priority: payload.priority,
      skill,
      retryBackoffMs: request.retryBackoffMs ?? this.deps.retryBackoffMs,
      ...(request.place ? { place: request.place } : {}),
    });
    coalesceWrites(this.deps.redis);
    const record = this.deps.store.records.create(payload, {
      max_attempts: skill.retry + 1,
      ...(request.requestedVersion === undefined ? {} : { requested_version: request.requestedVersion }),
      ...(request.slots ? { slots: request.slots } : {}),
      ...(request.replayOf === undefined ? {} : { replay_of: request.replayOf }),
      ...(request.remote ? { remote: true } : {}),
      ...request.notify,
    });
    const queue = request.remote
      ? this.deps.queues.remote(payload.priority)
      : this.deps.queues.for(skill.name, skill.version, payload.priority);
    const job = queue.add(
      skill.name,
      payload,
      parentJob ? { ...options, parent: parentJob, removeDependencyOnFailure: true } : options,
    );
    try {
      const [execution] = await Promise.all([record, job]);
      return execution;
    } catch (error) {
      // A refusal must mean the execution does not exist; but the writes may have applied all the
      // same (their reply later than the deadline on a busy event loop, or the connection lost after
      // sending). Answer as what Redis holds.
      if ((await this.settle(payload.execution_id, queue)) !== 'launched') throw error;
      const execution = await this.deps.store.records.get(payload.execution_id);
      if (!execution) throw error;
      return execution;
    }
  }

  /**
   * Takes back what a failed launch may have written, or finds that the execution exists after all.
   * Asked down the launch's own connection, so Redis answers after applying whatever of the launch
   * reached it. A job still waiting is removed with its record (the execution never was); a job a
   * worker holds or has held (its record past `accepted`: it retried, reported progress or ended)
   * means it runs. 'unknown' when Redis does not answer meanwhile: the launch may then still exist,
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
    if (state === 'waiting' || state === 'prioritized') {
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
