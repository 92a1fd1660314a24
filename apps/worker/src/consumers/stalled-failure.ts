import { type Logger, SkillError } from '@skillrun/core';
import { type ExecutionEngine, type ExecutionStore, untilRedisAnswers } from '@skillrun/core/data';
import type { Job } from 'bullmq';
import type { WorkerMetrics } from '../metrics/worker-metrics';

/**
 * A job whose worker died holding it more often than BullMQ's maxStalledCount (1) allows is
 * failed by BullMQ without running again, so no attempt records the end: this records it, so the
 * execution never stays `running` (again while Redis is away: the job has failed already). Other
 * failures were recorded by their attempt.
 */
export async function recordStalledFailure(
  job: Job,
  {
    store,
    engine,
    metrics,
    logger,
    retryDelayMs,
  }: {
    store: ExecutionStore;
    engine: Pick<ExecutionEngine, 'transitions'>;
    metrics: WorkerMetrics;
    logger: Logger;
    /** How long to wait before writing the end again while Redis is away. */
    retryDelayMs: number;
  },
): Promise<void> {
  if (!job.deferredFailure) return;
  const { execution_id, skill_id, trace_id } = job.data as Record<string, unknown>;
  if (typeof execution_id !== 'string') return;
  const error = new SkillError(
    'WORKER_LOST',
    `The execution was interrupted ${job.stalledCounter} times (its worker died, was killed or lost its lock) and was given up`,
    { details: { interruptions: job.stalledCounter } },
  ).toBody();
  // BullMQ counts the fetch that gives the job up as a start: it ran one time fewer.
  const end = { attempt: Math.max(1, job.attemptsStarted - 1), startedAt: job.processedOn ?? Date.now() };
  if (
    (await untilRedisAnswers(
      () => engine.transitions.fail(execution_id, 'failed', error, end),
      retryDelayMs,
    )) === 'applied' &&
    typeof skill_id === 'string'
  ) {
    const startedAt = (await store.records.get(execution_id))?.timestamps.started_at;
    metrics.executionEnded(skill_id, 'failed', startedAt === undefined ? undefined : Date.parse(startedAt));
  }
  logger.error({ execution_id, skill_id, trace_id, error }, 'execution given up after its workers stopped');
}
