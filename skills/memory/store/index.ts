import type { SkillContext } from '@skillrun/skill';

interface Input {
  text: string;
  path?: string;
  tags: string[];
}

export async function execute(input: Input, ctx: SkillContext) {
  const entry = await ctx.memory.store(input.text, { path: input.path, tags: input.tags });
  ctx.logger.info('stored a memory', { id: entry.id });
  return { id: entry.id, path: entry.path, stored_at: entry.created_at };
}
