import { isTerminalStatus, type JobPayload, type Logger } from '@skillrun/core';
import type { ExecutionEngine, ExecutionStore } from '@skillrun/core/data';
import { UnrecoverableError } from 'bullmq';
import type { WorkerMetrics } from '../metrics/worker-metrics';

export interface ApprovalGateDeps {
  store: ExecutionStore;
  /** What decides an approval the deadline has come for (ExecutionEngine.decide: one decision only). */
  engine: Pick<ExecutionEngine, 'decide'>;
  metrics: WorkerMetrics;
}

/**
 * What a worker does with a job its skill's approval policy held (`payload.approval`): its job waits
 * delayed until the approval's deadline, brought forward once approved. Taken, it runs if approved,
 * is let go if the execution has ended (rejected, canceled), and ends APPROVAL_TIMEOUT, unrun, if no
 * approver has decided yet: that decision races an approver's, and one of them is made. Only such
 * jobs cost the read.
 */
export class ApprovalGate {
  constructor(private readonly deps: ApprovalGateDeps) {}

  /** 'run' or 'ended'; throws UnrecoverableError once it has timed the approval out. */
  async pass(payload: JobPayload, logger: Logger): Promise<'run' | 'ended'> {
    for (;;) {
      const execution = await this.deps.store.records.get(payload.execution_id);
      if (!execution || isTerminalStatus(execution.status)) return 'ended';
      if (execution.status !== 'awaiting_approval') return 'run';
      const decided = await this.deps.engine.decide(execution, { state: 'timed_out', by: 'deadline' });
      if (decided === 'applied') {
        this.deps.metrics.executionEnded(payload.skill_id, 'failed', undefined);
        logger.warn('no approver decided before the deadline: the execution ends unrun');
        throw new UnrecoverableError('APPROVAL_TIMEOUT');
      }
      // An approver (or a cancel) came first: read what they decided.
    }
  }
}
