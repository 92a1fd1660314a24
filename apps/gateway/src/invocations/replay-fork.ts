import {
  compileTemplates,
  type Execution,
  type ForkPoint,
  isTruthy,
  type PipelineStep,
  renderValue,
  SkillError,
  type SkillSchemas,
  type StepSummary,
} from '@skillrun/core';
import {
  type ExecutionStore,
  launchInputs,
  runTargetOf,
  type SkillResolver,
  type StepEntry,
} from '@skillrun/core/data';

export interface ReplayForkDeps {
  store: Pick<ExecutionStore, 'records'>;
  resolver: SkillResolver;
  schemas: SkillSchemas;
}

/** Where a rerun from a step forks, and the steps it starts with (reused, attempt 0). */
export interface Fork {
  from: ForkPoint;
  reused: StepEntry[];
}

export interface ForkRequest {
  original: Pick<Execution, 'execution_id' | 'skill_id' | 'status' | 'error'>;
  /** The step asked for (`from_step`), if any. */
  fromStep: string | undefined;
  /** Whether the replay edits the inputs: reused outputs were made from the original's. */
  editedInputs: boolean;
  /** The original's inputs, which the steps rerun read again. */
  inputs: Record<string, unknown>;
  /** The composite's version range the replay runs. */
  range: string | undefined;
}

/**
 * A composite's rerun from a step (DBOS' fork, Temporal's reset): the steps before it are reused as
 * the original recorded them (their executions linked, not run again), it and the steps after it run
 * anew, each at its skill's current version. The step is the one asked for, else the failed one when
 * the original failed at a step and its inputs are not edited; none (a whole replay) otherwise.
 * Refused, before anything starts, when the step is unknown, a step before it did not complete, a
 * reused output has expired (OUTPUTS_EXPIRED) or no longer fits the step's input (its skill's
 * current version, after a major change).
 */
export class ReplayFork {
  constructor(private readonly deps: ReplayForkDeps) {}

  async of({ original, fromStep, editedInputs, inputs, range }: ForkRequest): Promise<Fork | undefined> {
    if (fromStep !== undefined && editedInputs) {
      throw fromStepError(
        'cannot be combined with edited inputs: the reused outputs were made from the original ones',
      );
    }
    const step = fromStep ?? (editedInputs ? undefined : failedStepOf(original));
    if (step === undefined) return undefined;
    const { entry } = await this.deps.resolver.resolve(original.skill_id, range);
    const { skill } = runTargetOf(entry);
    const definition = entry.source === 'hosted' ? entry.definition : undefined;
    if (definition?.mode !== 'composite') {
      throw fromStepError(`${original.skill_id} is not a composite: it has no steps to rerun from`);
    }
    const recorded = latestSteps((await this.deps.store.records.get(original.execution_id))?.steps ?? []);
    const names = definition.pipeline?.map((each) => each.step) ?? recorded.map((each) => each.step);
    const at = names.indexOf(step);
    if (at < 0) {
      throw fromStepError(
        `${skill.name}@${skill.version} has no step "${step}" (its steps: ${names.join(', ') || 'none recorded'})`,
      );
    }
    const { reused, outputs } = await this.reuse(original.execution_id, recorded, names, at);
    const pipelineStep = definition.pipeline?.[at];
    if (pipelineStep) await this.assertFits(pipelineStep, { input: inputs, steps: outputs });
    return { from: { execution_id: original.execution_id, step }, reused };
  }

  /** The steps before `names[at]` as the original recorded them, each of which must have completed. */
  private async reuse(originalId: string, recorded: StepSummary[], names: string[], at: number) {
    const reused: StepEntry[] = [];
    const outputs: Record<string, unknown> = {};
    for (const name of names.slice(0, at)) {
      const summary = recorded.findLast((each) => each.step === name);
      const kept = summary && (await this.reusedOf(originalId, summary, names[0] ?? name));
      if (!kept) {
        throw fromStepError(
          `step "${name}", before "${names[at]}", did not complete in execution ${originalId}: rerun from it`,
        );
      }
      reused.push(kept.entry);
      if ('output' in kept) outputs[name] = kept.output;
    }
    return { reused, outputs };
  }

  /** A recorded step as the fork reuses it, with its output; undefined if it did not complete. */
  private async reusedOf(
    originalId: string,
    summary: StepSummary,
    firstStep: string,
  ): Promise<{ entry: StepEntry; output?: unknown } | undefined> {
    const { step, skill_id, execution_id, skill_version } = summary;
    if (summary.status === 'skipped') return { entry: { step, skill_id, status: 'skipped', attempt: 0 } };
    if (execution_id === undefined || skill_version === undefined) return undefined;
    const child = await this.deps.store.records.get(execution_id);
    if (child === null) {
      throw new SkillError(
        'OUTPUTS_EXPIRED',
        `The output of step "${step}" of execution ${originalId} has expired (its execution ${execution_id} is gone): rerun the whole pipeline with from_step "${firstStep}"`,
        { details: { step, execution_id }, suggestedAction: `Replay with {"from_step": "${firstStep}"}` },
      );
    }
    if (child.status !== 'completed') return undefined;
    return { entry: { step, skill_id, skill_version, execution_id, attempt: 0 }, output: child.output };
  }

  /** The step rerun first takes what the reused outputs give it: checked against its skill now. */
  private async assertFits(
    step: PipelineStep,
    scope: { input: Record<string, unknown>; steps: Record<string, unknown> },
  ) {
    const where = `/steps/${step.step}`;
    if (
      step.condition &&
      !isTruthy(renderValue(compileTemplates(step.condition, `${where}/condition`), scope))
    )
      return;
    const resolved = await this.deps.resolver.resolve(step.skill, step.version);
    const inputs = renderValue(compileTemplates(step.input, `${where}/input`), scope) as Record<
      string,
      unknown
    >;
    try {
      launchInputs(this.deps.schemas, resolved, inputs, `${where}/input`);
    } catch (error) {
      const { skill } = runTargetOf(resolved.entry);
      const cause = error instanceof SkillError ? error.message : String(error);
      throw fromStepError(
        `the reused outputs no longer fit the input of step "${step.step}" (${skill.name}@${skill.version}, its current version): ${cause}`,
      );
    }
  }
}

/** The step the original failed at (STEP_FAILED names it), if it failed at one. */
function failedStepOf({ status, error }: Pick<Execution, 'status' | 'error'>): string | undefined {
  if (status !== 'failed' || error?.code !== 'STEP_FAILED') return undefined;
  const step = (error.details as { step?: unknown } | undefined)?.step;
  return typeof step === 'string' ? step : undefined;
}

/** The steps of the original's last attempt, after those it reused itself (a fork of a fork). */
function latestSteps(steps: StepSummary[]): StepSummary[] {
  const last = Math.max(0, ...steps.map((each) => each.attempt));
  return steps.filter((each) => each.attempt === 0 || each.attempt === last);
}

function fromStepError(message: string): SkillError {
  return new SkillError('INVALID_INPUT', `from_step: ${message}`, {
    details: [{ path: '/from_step', message }],
  });
}
