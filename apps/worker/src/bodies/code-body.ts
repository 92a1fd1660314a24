import { type CompositeDeps, CompositeRun } from '../composite/composite-run';
import { replayedAnswers } from '../composite/replayed-answers';
import { stepFailed } from '../composite/step-failure';
import type { SkillTask } from '../sandbox/messages';
import type { SandboxOutcome, SkillSandbox } from '../sandbox/skill-sandbox';
import type { Attempt, BodyOutcome, SkillBody } from './skill-body';

export interface CodeBodyDeps {
  sandbox: SkillSandbox;
  composite: CompositeDeps;
}

/**
 * `execute(input, ctx)` of the skill's module, run in a sandbox thread under the attempt's
 * deadline. A composite written as code is replayed each time the steps it invoked end, their
 * answers given back in order, until it returns.
 */
export class CodeBody implements SkillBody {
  constructor(private readonly deps: CodeBodyDeps) {}

  async run(attempt: Attempt): Promise<BodyOutcome> {
    if (attempt.skill.definition.mode !== 'composite') {
      const outcome = await this.execute(attempt);
      // Only a composite's thread suspends: ctx.invoke rejects in any other skill.
      return 'calls' in outcome ? { ok: false, error: notComposite } : outcome;
    }
    const run = await CompositeRun.open(this.deps.composite, attempt);
    const answered = await replayedAnswers(run);
    if ('waiting' in answered) return answered;
    const outcome = await this.execute(attempt, { calls: attempt.skill.definition.calls, answered });
    if (!('calls' in outcome)) return outcome;
    try {
      await run.launch(outcome.calls);
    } catch (error) {
      const [first] = outcome.calls;
      return { ok: false, error: stepFailed(first?.step ?? '', first?.skill ?? '', error) };
    }
    return (await run.wait()) ?? this.run(attempt);
  }

  private async execute(attempt: Attempt, composite?: SkillTask['composite']): Promise<SandboxOutcome> {
    // Not `logger`: the attempt makes its logger when first asked, and most skills log nothing.
    const { payload, skill, input, number, deadline, cancel, progress } = attempt;
    if (skill.body.kind !== 'code') throw new Error(`${skill.definition.name} has no code body`);
    return this.deps.sandbox.run({
      module: skill.body.module,
      isolation: skill.body.isolation,
      ...(skill.body.memoryMb === undefined ? {} : { memoryMb: skill.body.memoryMb }),
      input,
      meta: {
        executionId: payload.execution_id,
        skillId: skill.definition.name,
        skillVersion: skill.definition.version,
        traceId: payload.trace_id,
        caller: payload.caller,
        attempt: number,
      },
      ...(composite ? { composite } : {}),
      timeoutMs: Math.max(0, deadline - Date.now()),
      cancel,
      onEvent: (event) => {
        if (event.type === 'log')
          attempt.logger[event.level]({ skill_log: true, ...event.fields }, event.message);
        else progress.report(event.value);
      },
    });
  }
}

const notComposite = {
  code: 'TOOL_NOT_AVAILABLE',
  message: 'ctx.invoke is for skills whose mode is "composite"',
  recoverable: false,
};
