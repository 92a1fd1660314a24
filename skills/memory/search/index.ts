import type { SkillContext } from '@skillrun/skill';

export async function execute(input: { query: string; limit: number }, ctx: SkillContext) {
  const hits = await ctx.memory.search(input.query, input.limit);
  const results = hits.map(({ snippet, score, path }) => ({ snippet, score, path }));
  return { results, count: results.length };
}
