import { isTruthy, renderValue, SkillError, type TemplateScope } from '@skillrun/core';
import type { Attempt, BodyOutcome } from '../bodies/skill-body';
import type { CompiledPipeline, CompiledStep } from '../skills/loaded-skill';
import { type CompositeDeps, CompositeRun, type LaunchedEntry } from './composite-run';
import { LOST_STEP, stepFailed } from './step-failure';

/**
 * A declarative pipeline (spec 003 section 3.3). Each time the composite runs, it walks its steps
 * in order: a step that ended gives its output to the templates of the next ones, a step not yet
 * run is launched and the composite waits for it. The output is `outputMapping` rendered, or the
 * last step's output.
 */
export class PipelineWalk {
  constructor(private readonly deps: CompositeDeps) {}

  async run(attempt: Attempt, pipeline: CompiledPipeline): Promise<BodyOutcome> {
    const run = await CompositeRun.open(this.deps, attempt);
    const outputs: Record<string, unknown> = {};
    const scope: TemplateScope = { input: attempt.input, steps: outputs };
    let last: unknown = null;
    for (const step of pipeline.steps) {
      const entry = run.latest(step.step);
      if (entry && 'status' in entry) continue;
      if (entry) {
        const state = await run.stateOf(entry);
        if (state.state === 'completed') {
          outputs[step.step] = state.output;
          last = state.output;
          continue;
        }
        if (state.state !== 'missing') return this.unfinished(run, attempt, step, entry, state);
      }
      if (attempt.cancel.canceled) return { ok: false, canceled: true };
      if (Date.now() >= attempt.deadline) return { ok: false, timedOut: true };
      try {
        if (step.condition && !isTruthy(renderValue(step.condition, scope))) {
          await run.skip(step.step, step.skill);
          continue;
        }
        const inputs = renderValue(step.input, scope) as Record<string, unknown>;
        const key = step.concurrencyKey && keyOf(renderValue(step.concurrencyKey, scope));
        await run.launch([
          {
            step: step.step,
            skill: step.skill,
            inputs,
            ...(step.version ? { version: step.version } : {}),
            ...(key ? { concurrencyKey: key } : {}),
          },
        ]);
      } catch (error) {
        return { ok: false, error: stepFailed(step.step, step.skill, error) };
      }
      return (await run.wait()) ?? this.run(attempt, pipeline);
    }
    try {
      const { outputMapping } = pipeline;
      return { ok: true, output: outputMapping ? renderValue(outputMapping, scope) : last };
    } catch (error) {
      return { ok: false, error: new SkillError('INVALID_OUTPUT', (error as Error).message).toBody() };
    }
  }

  /** A launched step that has not completed: failed (so the composite fails), or still running. */
  private async unfinished(
    run: CompositeRun,
    attempt: Attempt,
    step: CompiledStep,
    entry: LaunchedEntry,
    state: Exclude<Awaited<ReturnType<CompositeRun['stateOf']>>, { state: 'completed' | 'missing' }>,
  ): Promise<BodyOutcome> {
    if (state.state === 'failed') {
      const error = state.execution.error;
      if (error?.code === 'EXECUTION_TIMEOUT' && Date.now() >= attempt.deadline) {
        return { ok: false, timedOut: true };
      }
      return { ok: false, error: stepFailed(step.step, step.skill, error, entry) };
    }
    const parked = await run.wait();
    if (parked) return parked;
    return { ok: false, error: stepFailed(step.step, step.skill, LOST_STEP, entry) };
  }
}

/** A rendered concurrency key: a string or a number names one; anything else (nothing, '') none. */
function keyOf(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}
