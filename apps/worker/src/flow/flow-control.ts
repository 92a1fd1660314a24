import type { JobPayload, SkillDefinition } from '@skillrun/core';
import { type ConcurrencyGate, type GatedExecution, isGated, type SlotHandover } from '@skillrun/core/data';
import { DelayedError, type Job } from 'bullmq';
import type { WorkerMetrics } from '../metrics/worker-metrics';

/**
 * How long a parked job stays delayed unless it is given its slots first: then it is taken again
 * and asks again, keeping its place in line. It bounds the wait a lost promotion can cause (a worker
 * that died between an execution's end and the promotion of the next).
 */
const PARK_RECHECK_MS = 60_000;

export interface FlowControlDeps {
  gate: ConcurrencyGate;
  /** Promotes the jobs of parked executions given their slots. */
  handover: SlotHandover;
  metrics: WorkerMetrics;
}

/** What an execution's admission comes to, when its job is not parked. */
export interface Admitted {
  /** It has ended meanwhile (canceled, or timed out, while it waited): nothing to run. */
  ended: boolean;
  /** How many times its job was parked, each of which BullMQ counted as a start of the job. */
  parks: number;
}

/** The admission of an execution its skill's concurrency limits do not gate. */
export const UNGATED: Readonly<Admitted> = Object.freeze({ ended: false, parks: 0 });

/**
 * The worker's side of a skill's concurrency limits (skill.json `concurrency`): as a job is taken,
 * its execution runs if it holds or gets its slots; otherwise its job is parked in BullMQ's delayed
 * set, holding no worker slot and no place at the head of its queue, until an execution that ends
 * gives it its slots and promotes it. Waiting is told by events, not polled.
 */
export class FlowControl {
  constructor(private readonly deps: FlowControlDeps) {}

  /** Whether the skill's concurrency limits gate the execution: if not, it is admitted as UNGATED. */
  gates(payload: JobPayload, { concurrency }: SkillDefinition): boolean {
    return isGated(concurrency, payload.concurrency_key);
  }

  /**
   * Admits the job's execution, or parks its job (moved to delayed, DelayedError thrown, as BullMQ's
   * processors do). `start`: the start it took of the skill's rate limit, given back if it is parked.
   */
  async admit(
    job: Job,
    token: string | undefined,
    payload: JobPayload,
    definition: SkillDefinition,
    start?: string,
  ): Promise<Admitted> {
    const gated = gatedOf(payload, definition);
    if (!gated) return UNGATED;
    const { verdict, parks, granted } = await this.deps.gate.admit({
      ...gated,
      ...(start === undefined ? {} : { rateStart: start }),
    });
    await this.deps.handover.promote(payload.skill_id, granted);
    if (verdict !== 'parked') return { ended: verdict === 'ended', parks };
    this.deps.metrics.executionParked(payload.skill_id);
    await job.moveToDelayed(Date.now() + PARK_RECHECK_MS, token);
    // Given its slots while its job was still active: the one that gave them could not promote it.
    if (await this.deps.gate.holds(gated)) await job.promote().catch(() => {});
    throw new DelayedError();
  }

  /**
   * After BullMQ ended a job (its execution's final transition freed its slots, unless it is to be
   * retried): the parked executions given those slots have their jobs promoted.
   */
  async released(job: Job, definition: SkillDefinition): Promise<void> {
    const payload = job.data as Partial<JobPayload>;
    const { concurrency } = definition;
    if (!isGated(concurrency, payload.concurrency_key)) return;
    const granted = await this.deps.gate.release(definition.name, payload.concurrency_key, concurrency);
    await this.deps.handover.promote(definition.name, granted);
  }
}

function gatedOf(payload: JobPayload, { name, concurrency }: SkillDefinition): GatedExecution | undefined {
  if (!isGated(concurrency, payload.concurrency_key)) return undefined;
  return {
    executionId: payload.execution_id,
    skillId: name,
    limits: concurrency,
    ...(payload.concurrency_key === undefined ? {} : { key: payload.concurrency_key }),
  };
}
