import type { JobsOptions } from 'bullmq';
import type { Priority } from '../schemas/invocation-request';
import type { SkillDefinition } from '../schemas/skill-definition';

/**
 * The queues of one version of a skill, so that a job only ever reaches a worker that hosts the very
 * version the gateway resolved (and validated the inputs against): `skill.ID@VERSION` holds normal
 * and low priority executions, `skill.ID@VERSION!high` the high priority ones (`!` is in neither
 * skill ids nor versions). Workers take from the high queue first when they have to choose.
 */
export function skillQueueName(skillId: string, version: string, priority: Priority = 'normal'): string {
  const name = `skill.${skillId}@${version}`;
  return priority === 'high' ? `${name}!high` : name;
}

/**
 * The queues of executions of skills registered from elsewhere (api federation): every worker takes
 * from them and calls the provider; `remote!high` holds the high priority ones.
 */
export function remoteQueueName(priority: Priority = 'normal'): string {
  return priority === 'high' ? 'remote!high' : 'remote';
}

/** Every queue of a version, the high priority one first. */
export function skillQueueNames(skillId: string, version: string): string[] {
  return [skillQueueName(skillId, version, 'high'), skillQueueName(skillId, version)];
}

export interface SkillJobOptionsInput {
  executionId: string;
  priority: Priority;
  skill: Pick<SkillDefinition, 'retry'>;
  retryBackoffMs: number;
  /** Where fair share puts the execution in its queue (fair-share.ts); in order when absent. */
  place?: QueuePlace;
  /** Ms until a delayed execution is due: BullMQ keeps its job in the queue's delayed set until then. */
  delayMs?: number;
}

/**
 * Out of the queue's order, for fair share while some caller bursts: `ahead` of every waiting job
 * (another caller's invocation within its share), or `behind` every waiting job at rank n (the n-th
 * excess of a burst, so that several bursts interleave).
 */
export type QueuePlace = { ahead: true } | { behind: number };

/** BullMQ's lowest priority (its PRIORITY_LIMIT): `low` executions wait behind everything else. */
const LOWEST = 2 ** 21 - 1;

/**
 * How every invocation is enqueued: the execution id is the job id, attempts follow the skill's
 * `retry`, backoff is exponential (initial delay × 2^n), and BullMQ's own copy of the job is
 * removed once it finishes (the execution record keeps the outcome). Normal and high priority jobs
 * go to their queue's plain FIFO list; a low one carries a BullMQ priority, which BullMQ serves only
 * once that list is empty (and which costs a sorted set on the way, so only `low` pays for it). Fair
 * share places a few out of order: `ahead` at the front of the list (BullMQ's LIFO), `behind` with
 * priority n, behind every FIFO job and ahead of `low`. A delayed job joins the back of its list
 * (or the priority set, with its priority) when due.
 */
export function skillJobOptions({
  executionId,
  priority,
  skill,
  retryBackoffMs,
  place,
  delayMs,
}: SkillJobOptionsInput): JobsOptions {
  const rank =
    priority === 'low'
      ? LOWEST
      : place && 'behind' in place
        ? Math.min(Math.max(place.behind, 1), LOWEST - 1)
        : 0;
  return {
    jobId: executionId,
    ...(rank > 0 ? { priority: rank } : place && 'ahead' in place ? { lifo: true } : {}),
    ...(delayMs ? { delay: delayMs } : {}),
    attempts: skill.retry + 1,
    backoff: { type: 'exponential', delay: retryBackoffMs },
    removeOnComplete: true,
    removeOnFail: true,
  };
}
