import type { JobsOptions } from 'bullmq';
import type { Priority } from '../schemas/invocation-request';
import type { SkillDefinition } from '../schemas/skill-definition';

/**
 * One BullMQ queue per version of a skill, so that a job only ever reaches a worker that hosts the
 * very version the gateway resolved (and validated the inputs against).
 */
export function skillQueueName(skillId: string, version: string): string {
  return `skill.${skillId}@${version}`;
}

/** BullMQ: a lower number runs first; every level is explicit so `normal` never jumps `high`. */
const PRIORITY_RANK: Record<Priority, number> = { high: 1, normal: 2, low: 3 };

export interface SkillJobOptionsInput {
  executionId: string;
  priority: Priority;
  skill: Pick<SkillDefinition, 'retry'>;
  retryBackoffMs: number;
}

/**
 * How every invocation is enqueued: the execution id is the job id, attempts follow the skill's
 * `retry`, backoff is exponential (initial delay × 2^n), and BullMQ's own copy of the job is
 * removed once it finishes (the execution record keeps the outcome).
 */
export function skillJobOptions({
  executionId,
  priority,
  skill,
  retryBackoffMs,
}: SkillJobOptionsInput): JobsOptions {
  return {
    jobId: executionId,
    priority: PRIORITY_RANK[priority],
    attempts: skill.retry + 1,
    backoff: { type: 'exponential', delay: retryBackoffMs },
    removeOnComplete: true,
    removeOnFail: true,
  };
}
