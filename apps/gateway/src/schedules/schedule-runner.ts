import { type Logger, SkillError, toErrorBody } from '@skillrun/core';
import type { ExecutionEngine, ExecutionStore, RunIds, ScheduleTick, ShardMap } from '@skillrun/core/data';
import type { Job } from 'bullmq';
import { knownErrorOf } from '../http/known-error';
import type { InvocationService } from '../invocations/invocation-service';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import type { ScheduleCredentials } from './schedule-credential';
import { invocationOf } from './schedule-invocation';
import type { FoundSchedule, ScheduleStore, StoredRun } from './schedule-store';

export interface ScheduleRunnerDeps {
  store: ScheduleStore;
  executions: ExecutionStore;
  credentials: ScheduleCredentials;
  /** The path POST invoke takes: a run is an ordinary execution, authorized, limited and recorded alike. */
  invocations: Pick<InvocationService, 'invoke'>;
  metrics: Pick<GatewayMetrics, 'scheduleRun'>;
  logger: Logger;
  /**
   * REDIS_SHARDS' vshards: above one, a schedule's runs go to the one it keeps, or to their skill's
   * home for a gated or debounced one (ShardMap.home).
   */
  shards: ShardMap;
  /** Where a schedule that keeps no active vshard is placed, and its runs' ids. */
  engine: Pick<ExecutionEngine, 'placeSchedule' | 'scheduleRunIds' | 'scheduleRunCandidates'>;
}

/**
 * Turns a schedule's due time (a job of the schedules queue) into its run: an execution started as
 * POST invoke starts one, for the caller who made the schedule, whose credential is checked anew;
 * a run skipped (overlap `skip` while the previous run goes on); or a failed run, recorded with the
 * error the invocation met (a revoked key, inputs the version resolved now refuses, a limit), so
 * that a schedule that stops working shows why rather than a gap.
 *
 * Exactly one execution per due time: BullMQ makes one job per due time and gives it to one gateway
 * at a time; a try that died with it (a gateway killed) leaves the job to another after its lock
 * expires, and the execution's id is derived from the schedule and the due time, so that the next
 * try finds the execution the dead one launched rather than launching a second. With REDIS_SHARDS
 * above 1 the id names the vshard the schedule keeps (placed at its creation, or at its first run
 * for one made at one shard), so that runs spread over the masters with ids as deterministic.
 */
export class ScheduleRunner {
  constructor(private readonly deps: ScheduleRunnerDeps) {}

  /** Runs a due time once; throws (for BullMQ to try again) only while its run cannot be decided. */
  async run(job: Job<ScheduleTick>): Promise<void> {
    const { store, metrics, logger } = this.deps;
    const scheduleId = job.data.schedule_id;
    const dueAt = dueTimeOf(job);
    const found = await store.get(scheduleId);
    // Deleted, or paused since the due time was set: it is due no more (a backfilled one still is:
    // asked for while paused, maybe).
    if (!found || (found.schedule.paused && job.data.due_at === undefined)) return;
    if (await store.hasRun(scheduleId, dueAt)) return;
    const ids = await this.runIdsOf(found, dueAt);
    // Deleted while its runs were placed.
    if (!ids) return;
    const run = await this.decide(found, dueAt, ids, isLastTry(job));
    if (!(await store.recordRun(scheduleId, run))) return;
    metrics.scheduleRun(run.outcome);
    if (run.error) {
      logger.info(
        { schedule_id: scheduleId, due_at: new Date(dueAt).toISOString(), code: run.error.code },
        'schedule run failed',
      );
    }
  }

  /**
   * The ids a due time's execution may have: its legacy one, and above one shard the one on the
   * schedule's vshard (which the run takes unless it is pinned to its skill's home: ExecutionEngine.place).
   * Null when the schedule was deleted meanwhile.
   */
  private async runIdsOf(found: FoundSchedule, dueAt: number): Promise<RunIds | null> {
    const vshard = await this.vshardOf(found);
    if (vshard === null) return null;
    return this.deps.engine.scheduleRunIds(found.schedule.id, dueAt, vshard);
  }

  /**
   * The vshard a schedule's runs go to: the one it keeps while active, else one placed now (a
   * schedule made at one shard, or under another REDIS_SHARDS); none at one shard, where every run
   * keeps its legacy id whatever the schedule kept. Null when the schedule was deleted meanwhile.
   */
  private async vshardOf({ schedule, vshard }: FoundSchedule): Promise<number | undefined | null> {
    const { store, shards, engine } = this.deps;
    if (shards.shards === 1) return undefined;
    const active = shards.active();
    if (vshard !== undefined && active.includes(vshard)) return vshard;
    const candidate = engine.placeSchedule();
    return candidate === undefined ? undefined : store.placeRuns(schedule.id, candidate, active);
  }

  private async decide(
    { schedule, lastExecutionId }: FoundSchedule,
    dueAt: number,
    ids: RunIds,
    lastTry: boolean,
  ) {
    const { executions, credentials, invocations, logger } = this.deps;
    const runOf = (fields: Omit<StoredRun, 'due_at' | 'recorded_at'>): StoredRun => ({
      due_at: dueAt,
      ...fields,
      recorded_at: Date.now(),
    });
    // A try that launched it and went away before recording the run.
    const launched = await this.launchedBefore(ids, schedule.skill_id);
    if (launched !== undefined) return runOf({ outcome: 'launched', execution_id: launched });
    try {
      const identity = await credentials.identityOf(schedule.credential);
      if (
        schedule.overlap === 'skip' &&
        lastExecutionId !== undefined &&
        !(await executions.records.isFinal(lastExecutionId))
      ) {
        return runOf({ outcome: 'skipped', execution_id: lastExecutionId });
      }
      const outcome = await invocations.invoke({
        ...invocationOf(schedule),
        headers: {},
        address: `schedule:${schedule.id}`,
        identity,
        origin: { kind: 'schedule-run', scheduleId: schedule.id, ...ids },
      });
      if ('refused' in outcome) throw outcome.refused;
      return runOf({ outcome: 'launched', execution_id: outcome.accepted.execution.execution_id });
    } catch (error) {
      const known = knownErrorOf(error);
      // Redis away, or a fault of ours: tried again while tries are left.
      if (!lastTry && (!known || known.code === 'SERVICE_UNAVAILABLE')) throw error;
      if (!known) logger.error({ err: error, schedule_id: schedule.id }, 'schedule run failed unexpectedly');
      const refusal = known ?? new SkillError('INTERNAL_ERROR', 'An unexpected error occurred');
      return runOf({ outcome: 'failed', error: toErrorBody(refusal, 'INTERNAL_ERROR') });
    }
  }

  /** The execution an earlier try launched for this due time, if any, under any id it may have. */
  private async launchedBefore(ids: RunIds, skillId: string): Promise<string | undefined> {
    for (const id of this.deps.engine.scheduleRunCandidates(ids, skillId))
      if (await this.deps.executions.records.get(id)) return id;
    return undefined;
  }
}

/**
 * The due time a job stands for: a backfill's own, or when its Job Scheduler made it plus the delay
 * it was given (which no retry changes). A due time set while none was consuming the queue is late, not lost: its job
 * waits, and runs once a gateway is back.
 */
function dueTimeOf(job: Job<ScheduleTick>): number {
  return job.data.due_at ?? job.timestamp + (job.opts.delay ?? 0);
}

function isLastTry(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}
