import { type Execution, type Logger, SkillError } from '@skillrun/core';
import type { ExecutionEngine, ExecutionStore, QueueRegistry } from '@skillrun/core/data';
import type { WorkerMetrics } from '../metrics/worker-metrics';
import type { WaitingComposites } from './waiting-composites';

export interface DeadlineSweeperDeps {
  waiting: WaitingComposites;
  store: ExecutionStore;
  /** Where the timeouts go (ExecutionEngine.transitions). */
  engine: Pick<ExecutionEngine, 'transitions'>;
  queues: QueueRegistry;
  logger: Logger;
  intervalMs: number;
  metrics: WorkerMetrics;
}

/**
 * Times out the composites whose deadline passed while they waited for a step, and the steps of
 * theirs that have not started (a running step has the same deadline and times out by itself).
 */
export class DeadlineSweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(private readonly deps: DeadlineSweeperDeps) {}

  start(): void {
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweep()
        .catch((error: unknown) =>
          this.deps.logger.warn({ err: (error as Error).message }, 'could not sweep composite deadlines'),
        )
        .finally(() => {
          this.sweeping = undefined;
        });
    }, this.deps.intervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  async sweep(): Promise<void> {
    const expired = await this.deps.waiting.claimExpired(Date.now(), 100);
    await Promise.all(expired.map((executionId) => this.timeOut(executionId)));
  }

  /**
   * The records of its unstarted steps first, then the composite's, then the steps' jobs: whoever
   * sees the composite ended finds none of its steps still waiting to run, and removing a step's
   * job (which moves the composite's job on to run again) comes once the composite has ended, so
   * that run finds it ended and does nothing.
   */
  private async timeOut(executionId: string): Promise<void> {
    const unstarted = await this.timeOutUnstartedSteps(executionId);
    await this.timeOutComposite(executionId);
    await Promise.all(
      unstarted.map(({ skill_id, skill_version, priority, execution_id }) =>
        this.deps.queues
          .for(skill_id, skill_version, priority, execution_id)
          .remove(execution_id)
          .catch(() => 0),
      ),
    );
  }

  private async timeOutComposite(executionId: string): Promise<void> {
    const { store, engine, logger, metrics } = this.deps;
    const error = new SkillError(
      'EXECUTION_TIMEOUT',
      'Composite execution reached its deadline while waiting for a step',
      { recoverable: false },
    ).toBody();
    if ((await engine.transitions.fail(executionId, 'timeout', error)) !== 'applied') return;
    const composite = await store.records.get(executionId);
    logger.warn(
      { execution_id: executionId, skill_id: composite?.skill_id, trace_id: composite?.trace_id },
      'composite timed out while waiting for a step',
    );
    if (composite) {
      metrics.attemptTimedOut(composite.skill_id);
      metrics.executionEnded(
        composite.skill_id,
        'timeout',
        Date.parse(composite.timestamps.started_at ?? ''),
      );
    }
  }

  /**
   * Ends the records of the steps that have not started (one that has has the composite's deadline
   * and times out by itself); answers them.
   */
  private async timeOutUnstartedSteps(executionId: string): Promise<Execution[]> {
    const { store, engine, metrics } = this.deps;
    const stepError = new SkillError(
      'EXECUTION_TIMEOUT',
      'Skill execution reached the deadline of the composite execution that called it',
      { recoverable: false },
    ).toBody();
    const unstarted: Execution[] = [];
    for (const entry of await store.steps.entries(executionId)) {
      if (!('execution_id' in entry)) continue;
      const step = await store.records.get(entry.execution_id);
      if (step?.status !== 'accepted') continue;
      if ((await engine.transitions.fail(entry.execution_id, 'timeout', stepError)) === 'applied') {
        metrics.executionEnded(step.skill_id, 'timeout');
      }
      unstarted.push(step);
    }
    return unstarted;
  }
}
