import type { SkillContext } from '@skillrun/skill';

/** The input was validated against skill.json's `input` before this runs; the output is checked too. */
export function execute(input: { name: string }, ctx: SkillContext) {
  ctx.logger.info('greeting', { name: input.name }); // a JSON log line with the execution's ids
  return { greeting: `Hello, ${input.name}!` };
}
