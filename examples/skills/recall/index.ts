import { SkillError } from '@skillrun/core';
import type { SkillContext } from '@skillrun/skill';

export async function execute(input: { query: string; limit: number }, ctx: SkillContext) {
  ctx.logger.info('searching', { query: input.query }); // a JSON log line with the execution's ids
  if (ctx.signal.aborted) throw ctx.signal.reason; // aborts at the attempt's deadline
  ctx.progress(50); // shows in the status as "progress"
  const hits = await ctx.memory.search(input.query, input.limit); // this caller's memory, in Redis
  if (hits.length === 0) throw new SkillError('NOTHING_FOUND', 'No memory matches', { recoverable: false });
  return { results: hits, count: hits.length }; // validated against the output schema
}
