import { fileURLToPath } from 'node:url';
import type { Execution } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSystem } from '../support/system';

// skill.json `rate_limit`: at most `max` executions start in any `per_ms` window, across every
// worker (the fixture: 2 a second). What is checked is how many starts fall in each window, from
// the executions' own started_at, not how long anything took.

const FLOW_SKILLS = fileURLToPath(new URL('../fixtures/flow-skills', import.meta.url));
const MAX = 2;
const WINDOW_MS = 1000;
/**
 * How much later than the start it took an attempt may record started_at (a worker takes a start,
 * then the job, then runs it): a window is counted that much narrower.
 */
const RECORDING_SLACK_MS = 250;

/** The most starts within any window of `windowMs` that begins at a start. */
function mostInAWindow(executions: Execution[], windowMs: number): number {
  const starts = executions
    .map((execution) => Date.parse(execution.timestamps.started_at ?? ''))
    .sort((a, b) => a - b);
  return Math.max(...starts.map((from) => starts.filter((at) => at >= from && at < from + windowMs).length));
}

describe('rate limit at dispatch', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR: FLOW_SKILLS });
    await Promise.all([
      system.addWorker({ WORKER_CONCURRENCY: '4' }),
      system.addWorker({ WORKER_CONCURRENCY: '4' }),
    ]);
  });
  afterAll(() => system?.stop());

  it('publishes the limits in the descriptor, for consumers to see (x-rate_limit, x-concurrency)', async () => {
    const rated = await system.client.request<Record<string, unknown>>('/skills/rated');
    expect(rated.body['x-rate_limit']).toEqual({ max: 2, per_ms: 1000 });
    const fair = await system.client.request<Record<string, unknown>>('/skills/two_fair');
    expect(fair.body['x-concurrency']).toEqual({ limit: 2, per_key: 1 });
  });

  it('starts at most max executions in any window across every worker; the others wait in the queue', async () => {
    const ids = await Promise.all(
      Array.from({ length: 8 }, async (_, index) => {
        const answer = await system.client.invoke('rated', { text: `call ${index}` });
        expect(answer.status).toBe(202);
        return String(answer.body.execution_id);
      }),
    );
    const finals = await system.client.waitForEnds('rated', ids, 60_000, 8);
    expect(finals.map((execution) => execution.status)).toEqual(ids.map(() => 'completed'));
    expect(mostInAWindow(finals, WINDOW_MS - RECORDING_SLACK_MS)).toBeLessThanOrEqual(MAX);
  });
});
