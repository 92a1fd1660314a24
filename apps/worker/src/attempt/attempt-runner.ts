import { type Logger, type SkillKind, type SkillSchemas, toErrorBody } from '@skillrun/core';
import type { DailySpend, ExecutionEngine, ExecutionStore } from '@skillrun/core/data';
import type { Job } from 'bullmq';
import type { Attempt, BodyOutcome, SkillBody } from '../bodies/skill-body';
import type { FlowControl } from '../flow/flow-control';
import type { WorkerMetrics } from '../metrics/worker-metrics';
import type { LoadedSkill } from '../skills/loaded-skill';
import { ChunkWriter } from '../streaming/chunk-writer';
import type { StreamLimits } from '../streaming/stream-budget';
import { Admission } from './admission';
import type { AttemptLog } from './attempt-log';
import { AttemptStart, type Started } from './attempt-start';
import type { Cancellations } from './cancellations';
import { FixedCost } from './fixed-cost';
import { OutputCheck } from './output-check';
import type { PendingOutcomes } from './pending-outcomes';
import { Settlement } from './settlement';

export interface AttemptRunnerDeps {
  /** Holds an attempt's outcome until its job ends, and writes it then. */
  outcomes: PendingOutcomes;
  /** Where a running attempt learns that its execution was canceled. */
  cancellations: Cancellations;
  store: ExecutionStore;
  /**
   * Where the attempt's status moves go (ExecutionEngine.transitions), and the decision on an
   * approval whose deadline has come (ExecutionEngine.decide).
   */
  engine: Pick<ExecutionEngine, 'transitions' | 'decide'>;
  schemas: SkillSchemas;
  logger: Logger;
  retryBackoffMs: number;
  /** This process' WORKER_ID, recorded with each outcome. */
  workerId: string;
  /** The largest output, as JSON bytes, an execution may complete with (MAX_OUTPUT_BYTES). */
  maxOutputBytes: number;
  /** How much an attempt may stream (MAX_CHUNK_BYTES, MAX_STREAM_BYTES). */
  stream: StreamLimits;
  /** How often a running skill's progress is written to its record, at most. */
  progressIntervalMs: number;
  /** The body that runs each kind of skill, and answers what the runner needs to know of it. */
  bodies: Record<SkillKind, SkillBody>;
  metrics: WorkerMetrics;
  /** The skills' concurrency limits: an execution over one is parked before it starts. */
  flow: FlowControl;
  /** Callers' spend per day, for those with a daily budget. */
  dailySpend: DailySpend;
}

/** What the skill's body came to, and the writer of the chunks it streamed, if it did. */
interface Ran {
  outcome: BodyOutcome;
  chunks: ChunkWriter | undefined;
}

/**
 * One attempt of one execution, as its steps: admit (what came off the queue, validated, and its
 * concurrency slots), due (its inputs and queue timeout, its start and deadline), run (the skill's
 * body under its deadline), validate (its output) and settle (record the outcome). Nothing is written when an attempt starts
 * (BullMQ's job says so until the outcome is written); the outcome is written as the attempt's run
 * ends, just before BullMQ's completion of the job (PendingOutcomes). A failure that will be retried is
 * thrown as a plain Error (BullMQ backs off and tries again); a final one is recorded and thrown as
 * UnrecoverableError. A composite waiting for its steps throws WaitingChildrenError.
 */
export class AttemptRunner {
  private readonly admission: Admission;
  private readonly starting: AttemptStart;
  private readonly output: OutputCheck;
  private readonly settlement: Settlement;
  private readonly fixedCost: FixedCost;

  constructor(private readonly deps: AttemptRunnerDeps) {
    this.fixedCost = new FixedCost(deps);
    this.admission = new Admission(deps);
    this.starting = new AttemptStart(deps);
    this.output = new OutputCheck(deps);
    this.settlement = new Settlement(deps);
  }

  /**
   * The attempt's steps: admit, due, run, validate, settle. `start`: the start its consumer took of
   * the skill's rate limit, if it has one.
   */
  async run(job: Job, token: string | undefined, skill: LoadedSkill, start?: string): Promise<void> {
    const admitted = await this.admission.admit(job, token, skill, start);
    if (!admitted) return;
    const started = await this.starting.due(job, admitted);
    const ran = await this.runBody(job, token, started);
    const checked = this.output.check(ran.outcome, skill);
    // Awaited only when there is something to wait for: the streamed chunks, a parked job.
    const outcome = ran.chunks ? await this.output.closed(checked, ran.chunks) : checked;
    const parked = this.settlement.settle(job, token, started, outcome);
    if (parked) await parked;
  }

  /**
   * Run: the skill's body, once, under the attempt's deadline and its execution's cancel watch; a
   * run whose execution was canceled meanwhile comes to `canceled`, whatever it answered.
   */
  private async runBody(job: Job, token: string | undefined, started: Started): Promise<Ran> {
    const { payload, skill, body, number, startedAt, limit, progress, log } = started;
    log.debug('attempt started');
    const cancel = this.deps.cancellations.watch(payload.execution_id);
    let chunks: ChunkWriter | undefined;
    const writer = () => {
      chunks ??= this.chunkWriter(payload.execution_id, log);
      return chunks;
    };
    const outcome = await this.attempt(body, {
      job,
      token,
      payload,
      skill,
      number,
      startedAt,
      deadline: limit.at,
      cancel,
      progress,
      get logger() {
        return log.logger;
      },
      get chunks() {
        return writer();
      },
    }).finally(() => cancel.release());
    return { outcome: cancel.canceled ? { ok: false, canceled: true } : outcome, chunks };
  }

  /** Where an attempt's chunks go, once its skill first streams one. */
  private chunkWriter(executionId: string, log: AttemptLog): ChunkWriter {
    return new ChunkWriter({
      chunks: this.deps.store.chunks,
      executionId,
      limits: this.deps.stream,
      onLost: (error) =>
        log.logger.warn(
          { err: (error as Error).message },
          'streamed chunks could not be written; they are lost',
        ),
    });
  }

  /**
   * Runs the skill's body once, its inputs checked against the skill's input schema first; what it
   * spent beyond its own run is reported before the outcome is recorded.
   */
  private async attempt(body: SkillBody, attempt: Omit<Attempt, 'input'>): Promise<BodyOutcome> {
    const { definition, publication } = attempt.skill;
    let input: Attempt['input'];
    try {
      input = this.deps.schemas.assertInputs(definition.input, attempt.payload.inputs, {
        coerce: publication['x-coercion'] ?? true,
        basePath: '/inputs',
      });
    } catch (error) {
      return { ok: false, error: toErrorBody(error, 'INVALID_INPUT') };
    }
    if (Date.now() >= attempt.deadline) return { ok: false, timedOut: true };
    // Assigned, not spread: a spread would call the attempt's lazy `logger` getter.
    const outcome = await body.run(Object.assign(attempt, { input }));
    if ('waiting' in outcome) return outcome;
    // Before the outcome is recorded, so that a finished composite shows all its steps spent.
    if (body.reportUsage)
      await body.reportUsage(attempt.payload.execution_id, attempt.number).catch(() => {});
    if (this.fixedCost.applies(attempt.skill))
      await this.fixedCost.charge(attempt.payload, attempt.skill).catch(() => {});
    return outcome;
  }
}
