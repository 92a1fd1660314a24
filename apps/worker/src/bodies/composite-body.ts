import { type CompositeDeps, CompositeRun } from '../composite/composite-run';
import { PipelineWalk } from '../composite/pipeline-walk';
import { replayedAnswers } from '../composite/replayed-answers';
import { stepFailed } from '../composite/step-failure';
import type { SkillSandbox } from '../sandbox/skill-sandbox';
import type { CodeModule } from '../skills/loaded-skill';
import { runInSandbox } from './run-in-sandbox';
import type { Attempt, BodyOutcome, SkillBody } from './skill-body';

export interface CompositeBodyDeps extends CompositeDeps {
  /** Where a composite written as code runs. */
  sandbox: SkillSandbox;
}

/**
 * A skill that calls others (spec 003's composite): a declarative pipeline, or code whose ctx.invoke
 * launches steps. Each run goes as far as the ended steps allow, launches the next ones and waits for
 * them without a worker slot; BullMQ runs it again as they end, the same attempt going on. What it
 * spent is its steps' usage.
 */
export class CompositeBody implements SkillBody {
  readonly resumes = 'after-steps';
  readonly countsStarts = false;
  readonly handsIn = false;
  private readonly pipelines: PipelineWalk;

  constructor(private readonly deps: CompositeBodyDeps) {
    this.pipelines = new PipelineWalk(deps);
  }

  run(attempt: Attempt): Promise<BodyOutcome> {
    const { body } = attempt.skill;
    if (body.kind !== 'composite') throw new Error(`${attempt.skill.definition.name} is not a composite`);
    return 'pipeline' in body ? this.pipelines.run(attempt, body.pipeline) : this.replay(attempt, body.code);
  }

  /** The steps' usage and cost (of the attempt that just ended) added to the composite's own. */
  async reportUsage(executionId: string, attempt: number): Promise<void> {
    const { store } = this.deps;
    const entries = await store.steps.entries(executionId);
    const launched = entries.filter((entry) => entry.attempt === attempt && 'execution_id' in entry);
    const spent = await Promise.all(
      launched.flatMap((entry) => ('execution_id' in entry ? [store.usage.spent(entry.execution_id)] : [])),
    );
    await store.usage.add(executionId, {
      increments: spent.flatMap(({ increments }) => increments),
      costNano: spent.reduce((sum, { costNano }) => sum + costNano, 0),
    });
  }

  /**
   * A composite written as code, replayed each time the steps it invoked end, their answers given back
   * in order, until it returns.
   */
  private async replay(attempt: Attempt, code: CodeModule): Promise<BodyOutcome> {
    const run = await CompositeRun.open(this.deps, attempt);
    const answered = await replayedAnswers(run);
    if ('waiting' in answered) return answered;
    const calls = attempt.skill.definition.calls;
    const outcome = await runInSandbox(this.deps.sandbox, attempt, code, { calls, answered });
    if (!('calls' in outcome)) return outcome;
    try {
      await run.launch(outcome.calls);
    } catch (error) {
      const [first] = outcome.calls;
      return { ok: false, error: stepFailed(first?.step ?? '', first?.skill ?? '', error) };
    }
    return (await run.wait()) ?? this.replay(attempt, code);
  }
}
