import type { Redis } from 'ioredis';
import { coalesceWrites } from '../redis/coalesce-writes';
import type { Execution } from '../schemas/execution';
import type { JobPayload } from '../schemas/job-payload';
import type { SkillDefinition } from '../schemas/skill-definition';
import type { ExecutionStore } from '../store/execution-store';
import type { QueueRegistry } from './queue-registry';
import { skillJobOptions } from './skill-queue';

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
  /** How far past its fair share of the queue the caller is (skill-queue.ts). */
  overShare?: number;
}

export interface LauncherDeps {
  /** The connection store and queues share. */
  redis: Redis;
  store: ExecutionStore;
  queues: QueueRegistry;
  retryBackoffMs: number;
}

type Within = <T>(operation: () => Promise<T>) => Promise<T>;

/**
 * Starts an execution: its record, then its job on the skill version's queue, sent down the same
 * connection in one write and one round trip (Redis stores the record first, so status is readable
 * as soon as the job can run). Used by the gateway for invocations and by workers for a composite's steps.
 */
export class ExecutionLauncher {
  constructor(private readonly deps: LauncherDeps) {}

  /** `within` bounds the round trip (the gateway's Redis deadline); nothing is left behind if it fails. */
  async launch(request: LaunchRequest, within: Within = (operation) => operation()): Promise<Execution> {
    const { payload, skill, parentJob } = request;
    const options = skillJobOptions({
      executionId: payload.execution_id,
      priority: payload.priority,
      skill,
      retryBackoffMs: this.deps.retryBackoffMs,
      ...(request.overShare ? { overShare: request.overShare } : {}),
    });
    coalesceWrites(this.deps.redis);
    const record = this.deps.store.create(payload, {
      max_attempts: skill.retry + 1,
      ...(request.requestedVersion === undefined ? {} : { requested_version: request.requestedVersion }),
      ...(request.slots ? { slots: request.slots } : {}),
      ...(request.replayOf === undefined ? {} : { replay_of: request.replayOf }),
    });
    const queue = this.deps.queues.for(skill.name, skill.version, payload.priority);
    const job = queue.add(
      skill.name,
      payload,
      parentJob ? { ...options, parent: parentJob, removeDependencyOnFailure: true } : options,
    );
    try {
      const [execution] = await within(() => Promise.all([record, job]));
      return execution;
    } catch (error) {
      await Promise.allSettled([
        this.deps.store.discard(payload.execution_id),
        queue.remove(payload.execution_id),
      ]);
      throw error;
    }
  }
}
