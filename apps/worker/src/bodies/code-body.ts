import type { SkillSandbox } from '../sandbox/skill-sandbox';
import { runInSandbox } from './run-in-sandbox';
import type { Attempt, BodyOutcome, SkillBody } from './skill-body';

/** `execute(input, ctx)` of the skill's module, run once in a sandbox thread under the attempt's deadline. */
export class CodeBody implements SkillBody {
  readonly resumes = false;
  readonly countsStarts = true;
  readonly handsIn = false;

  constructor(private readonly sandbox: SkillSandbox) {}

  async run(attempt: Attempt): Promise<BodyOutcome> {
    const { skill } = attempt;
    if (skill.body.kind !== 'code') throw new Error(`${skill.definition.name} has no code body`);
    const outcome = await runInSandbox(this.sandbox, attempt, skill.body.code);
    // Only a composite's thread suspends: ctx.invoke rejects in any other skill.
    return 'calls' in outcome ? { ok: false, error: notComposite } : outcome;
  }
}

const notComposite = {
  code: 'TOOL_NOT_AVAILABLE',
  message: 'ctx.invoke is for skills whose mode is "composite"',
  recoverable: false,
};
