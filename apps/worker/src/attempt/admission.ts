import {
  JobPayload,
  type Logger,
  SchemaValidator,
  SkillError,
  type SkillKind,
  type TerminalStatus,
  toErrorBody,
} from '@skillrun/core';
import type { ExecutionEngine, ExecutionStore } from '@skillrun/core/data';
import { type Job, UnrecoverableError } from 'bullmq';
import type { SkillBody } from '../bodies/skill-body';
import { type FlowControl, UNGATED } from '../flow/flow-control';
import type { WorkerMetrics } from '../metrics/worker-metrics';
import type { LoadedSkill } from '../skills/loaded-skill';
import { ApprovalGate } from './approval-gate';
import { AttemptLog } from './attempt-log';

export interface AdmissionDeps {
  store: ExecutionStore;
  /** Where the attempt's status moves go (ExecutionEngine.transitions), and approvals' deadlines. */
  engine: Pick<ExecutionEngine, 'transitions' | 'decide'>;
  logger: Logger;
  /** The body that runs each kind of skill. */
  bodies: Record<SkillKind, SkillBody>;
  metrics: WorkerMetrics;
  /** The skills' concurrency limits: an execution over one is parked before it starts. */
  flow: FlowControl;
}

const payloadValidator = new SchemaValidator(JobPayload, 'job payload');

/** An attempt admitted to run: its execution holds its concurrency slots and has not ended. */
export interface Admitted {
  payload: JobPayload;
  skill: LoadedSkill;
  body: SkillBody;
  /** The attempt, as retries count them (a takeover after a lost worker is not one). */
  number: number;
  /** BullMQ's starts of the job, less those that parked it. */
  attemptsStarted: number;
  startedAt: number;
  log: AttemptLog;
}

/**
 * An attempt's admit step: what came off the queue is re-validated for the skill version the queue
 * serves, the execution's concurrency slots are taken (or its job parked), and a job back for an
 * execution that has ended meanwhile is let go.
 */
export class Admission {
  private readonly approvals: ApprovalGate;

  constructor(private readonly deps: AdmissionDeps) {
    this.approvals = new ApprovalGate(deps);
  }

  /**
   * Admit: the job's payload, read for this very skill version, and its execution given its
   * concurrency slots (else its job is parked: DelayedError). Nothing to run (undefined) when the
   * execution has ended meanwhile.
   */
  async admit(
    job: Job,
    token: string | undefined,
    skill: LoadedSkill,
    start: string | undefined,
  ): Promise<Admitted | undefined> {
    const body = this.deps.bodies[skill.body.kind];
    const payload = this.parsePayload(job, skill);
    // Before its concurrency slots: one not approved (yet) holds none.
    if (payload.approval && (await this.approvals.pass(payload, this.deps.logger)) === 'ended') {
      this.deps.logger.info({ execution_id: payload.execution_id }, 'execution ended before its approval');
      return undefined;
    }
    const { flow } = this.deps;
    const admitted = flow.gates(payload, skill.definition)
      ? await flow.admit(job, token, payload, skill.definition, start)
      : UNGATED;
    // BullMQ counts each time a job is taken, parked ones too, which did not start.
    const attemptsStarted = job.attemptsStarted - admitted.parks;
    const number = job.attemptsMade + 1;
    const startedAt = Date.now();
    const log = new AttemptLog(this.deps.logger, {
      execution_id: payload.execution_id,
      skill_id: payload.skill_id,
      trace_id: payload.trace_id,
      attempt: number,
    });
    // A job run again (after its worker stopped, a failed attempt, or a composite's steps), or
    // parked for a while, may have ended already: canceled meanwhile, or its outcome written before
    // BullMQ heard of it.
    if (
      admitted.ended ||
      ((job.stalledCounter > 0 || attemptsStarted > 1) &&
        (await this.deps.store.records.isFinal(payload.execution_id)))
    ) {
      if (body.handsIn) {
        await this.handedIn(payload, log.logger);
        return undefined;
      }
      await body.abandon?.(payload, skill);
      log.logger.info(
        'execution already ended (canceled, or before its worker stopped); not running it again',
      );
      return undefined;
    }
    return { payload, skill, body, number, attemptsStarted, startedAt, log };
  }

  /**
   * A task completed or declined through the gateway, its job promoted so that BullMQ ends it (and a
   * composite waiting for it goes on): counted here, once, as the job ends.
   */
  private async handedIn(payload: JobPayload, logger: Logger): Promise<void> {
    const execution = await this.deps.store.records.get(payload.execution_id);
    // A canceled one was counted by the gateway that canceled it.
    if (!execution || execution.status === 'canceled') return;
    const startedAt = Date.parse(execution.timestamps.started_at ?? execution.timestamps.created_at);
    this.deps.metrics.executionEnded(
      payload.skill_id,
      execution.status as Exclude<TerminalStatus, 'canceled'>,
      startedAt,
    );
    logger.info({ status: execution.status, by: execution.worker_id }, `task ${execution.status}`);
  }

  /** The job's payload, re-validated: it must be for the very skill version this queue serves. */
  private parsePayload(job: Job, { definition }: LoadedSkill): JobPayload {
    try {
      const payload = payloadValidator.parse(job.data);
      if (payload.skill_id !== definition.name || payload.skill_version !== definition.version) {
        throw new SkillError(
          'INVALID_INPUT',
          `The job is for ${payload.skill_id}@${payload.skill_version}, not ${definition.name}@${definition.version}`,
          { recoverable: false },
        );
      }
      return payload;
    } catch (error) {
      this.deps.logger.error(
        { job_id: job.id, error: toErrorBody(error, 'INVALID_INPUT') },
        'unreadable job',
      );
      const executionId = typeof job.data?.execution_id === 'string' ? job.data.execution_id : undefined;
      if (executionId) {
        void this.deps.engine.transitions
          .fail(executionId, 'failed', toErrorBody(error, 'INVALID_INPUT'))
          .catch(() => {});
      }
      throw new UnrecoverableError('unreadable job payload');
    }
  }
}
