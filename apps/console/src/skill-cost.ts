import { query } from './api';
import type { PageContext } from './context';
import { h, replace } from './dom';
import { usd } from './format';
import type { ExecutionPage } from './protocol';
import { sparkline } from './sparkline';

/** Twenty-four buckets of an hour: the last day. */
const BUCKET_MS = 3_600_000;
const BUCKETS = 24;
/** Pages of GET /executions read, at most (100 executions each). */
const PAGES = 10;

/**
 * What a skill's executions cost over the last day, hour by hour, as a sparkline with the day's
 * total, from the execution history the reader may see (GET /executions?skill_id=…): each execution
 * counted in the hour it was accepted, at its usage's cost_usd.
 */
export function skillCost(context: PageContext, skillId: string): HTMLElement {
  const area = h('section', { 'aria-labelledby': 'cost-heading', 'aria-busy': 'true' });
  const heading = h('h2', { id: 'cost-heading' }, 'Cost, last 24 hours');

  async function load(): Promise<void> {
    const now = Date.now();
    const since = new Date(now - BUCKETS * BUCKET_MS).toISOString();
    const hours = new Array<number>(BUCKETS).fill(0);
    let cursor: string | undefined;
    for (let page = 0; page < PAGES; page++) {
      const answer = await context.api.request<ExecutionPage>(
        `/executions${query({ skill_id: skillId, since, limit: 100, cursor })}`,
        { signal: context.signal },
      );
      for (const execution of answer.executions) {
        const cost = execution.usage?.cost_usd;
        if (cost === undefined) continue;
        const bucket =
          BUCKETS - 1 - Math.floor((now - Date.parse(execution.timestamps.created_at)) / BUCKET_MS);
        if (bucket >= 0 && bucket < BUCKETS) hours[bucket] = (hours[bucket] ?? 0) + cost;
      }
      if (!answer.next_cursor) break;
      cursor = answer.next_cursor;
    }
    const total = hours.reduce((sum, cost) => sum + cost, 0);
    replace(
      area,
      heading,
      h(
        'p',
        {},
        sparkline(
          hours.map((cost) => Number(cost.toFixed(6))),
          `${skillId} cost in US dollars per hour`,
          'ok',
        ),
        h(
          'span',
          { class: 'spark-total', 'data-cost-total': String(Number(total.toFixed(9))) },
          ` ${usd(total)} in all`,
        ),
      ),
    );
    area.setAttribute('aria-busy', 'false');
  }

  replace(area, heading, h('p', {}, 'Loading…'));
  load().catch(() => {
    replace(area, heading, h('p', {}, 'The cost history could not be read.'));
    area.setAttribute('aria-busy', 'false');
  });
  return area;
}
