import type { BenchContext } from '../context.mjs';
import type { LoadResult } from './load.mjs';

/** Records, for the report, every answer to a POST invoke that was not a 202, and lost requests. */
export function noteAnswers(ctx: BenchContext, label: string, result: LoadResult): void {
  const others = [...result.statuses].filter(([status]) => status !== 202);
  if (others.length === 0 && result.errors === 0 && result.timeouts === 0) return;
  const statuses = others.map(([status, count]) => `${status}×${count}`).join(', ');
  ctx.oddities.push(
    `${label}: ${statuses || 'no non-202 answer'}; connection errors ${result.errors}, timeouts ${result.timeouts}`,
  );
}
