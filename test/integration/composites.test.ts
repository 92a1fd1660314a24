import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Execution } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSkills } from '../support/service-process';
import { TestSystem } from '../support/system';

const compositeSkills = fileURLToPath(new URL('../fixtures/composite-skills', import.meta.url));
const SKILLS_DIR = [fixtureSkills, compositeSkills].join(delimiter);
const at = (timestamp?: string) => Date.parse(timestamp ?? '');
const COMPOSITES_AND_THEIR_STEPS = [
  'code_composite',
  'deadline_pipeline',
  'failing_pipeline',
  'join_words',
  'slow_pipeline',
  'word_list',
  'echo',
  'thrower',
].join(',');

describe('composite skills: pipelines and code that invoke other skills', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR, COMPOSITE_SWEEP_INTERVAL_MS: '100' });
    // One execution at a time on each worker, and sleepy on a worker of its own: a waiting
    // composite must not hold its slot, and a step can wait in its queue while its parent runs.
    await system.addWorker({ WORKER_SKILLS: 'sleepy', WORKER_CONCURRENCY: '1' });
    await system.addWorker({ WORKER_SKILLS: COMPOSITES_AND_THEIR_STEPS, WORKER_CONCURRENCY: '1' });
  });
  afterAll(() => system?.stop());

  async function stepsOf(parent: Execution): Promise<Execution[]> {
    return Promise.all(
      (parent.steps ?? [])
        .filter((step) => step.execution_id)
        .map((step) => system.client.status(step.skill_id, String(step.execution_id))),
    );
  }

  it('runs a declarative pipeline: templates, filters, types kept, a false condition skipped', async () => {
    const { final } = await system.client.run('join_words', { text: 'alpha beta gamma' });
    expect(final.status).toBe('completed');
    expect(final.output).toEqual({
      joined: 'alpha-beta-gamma',
      count: 3,
      words: ['alpha', 'beta', 'gamma'],
      first: 'alpha',
      shouted: 'not shouted',
      sentence: '3 words: ["alpha","beta","gamma"]',
    });
    expect(final.steps?.map(({ step, skill_id, status }) => [step, skill_id, status])).toEqual([
      ['split', 'word_list', 'completed'],
      ['dashes', 'echo', 'completed'],
      ['shout', 'echo', 'skipped'],
    ]);
    // Run again as each step ended, it is still its first and only attempt.
    expect([final.attempts, final.max_attempts]).toEqual([1, 1]);
  });

  it('runs a step whose condition is true', async () => {
    const { final } = await system.client.run('join_words', { text: 'one two', loud: true });
    expect(final.status).toBe('completed');
    expect(final.output).toMatchObject({ shouted: '2 words' });
    expect(final.steps?.map(({ status }) => status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('makes every step a real execution, linked to its parent and sharing its trace id', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const { final } = await system.client.run(
      'join_words',
      { text: 'linked steps' },
      { context: { trace_id: traceId } },
    );
    const steps = await stepsOf(final);
    expect(steps).toHaveLength(2);
    for (const [index, step] of steps.entries()) {
      expect(step.execution_id).not.toBe(final.execution_id);
      expect(step.status).toBe('completed');
      expect(step.trace_id).toBe(traceId);
      expect(step.caller).toEqual(final.caller);
      expect(step.parent).toEqual({ execution_id: final.execution_id, step: final.steps?.[index]?.step });
      expect(step.skill_version).toBe('1.0.0');
    }
    // What the step's skill saw in its ctx: its own execution, the parent's trace and caller.
    expect(steps[1]?.output).toMatchObject({
      text: 'linked-steps',
      seen: { execution_id: steps[1]?.execution_id, trace_id: traceId, caller: final.caller },
    });
  });

  it('renders data literally: input that looks like a template or code is never evaluated', async () => {
    const code = ['$', '{process.env.HOME}'].join('');
    const text = `{{steps.split.count}} ${code}`;
    const { final } = await system.client.run('join_words', { text });
    expect(final.status).toBe('completed');
    expect(final.output).toMatchObject({
      joined: `{{steps.split.count}}-${code}`,
      words: ['{{steps.split.count}}', code],
    });
  });

  it('frees the worker slot while a composite waits: at concurrency 1 composites interleave', async () => {
    const runs = await Promise.all(
      ['a', 'b', 'c'].map((label) => system.client.run('slow_pipeline', { ms: 300, label })),
    );
    const finals = runs.map(({ final }) => final);
    expect(finals.map((final) => [final.status, (final.output as { label: string }).label])).toEqual([
      ['completed', 'a'],
      ['completed', 'b'],
      ['completed', 'c'],
    ]);
    // Had a waiting composite held the only slot, each would start after the previous one ended.
    const byStart = [...finals].sort((x, y) => at(x.timestamps.started_at) - at(y.timestamps.started_at));
    const [first, second] = byStart;
    expect(at(second?.timestamps.started_at)).toBeLessThan(at(first?.timestamps.completed_at));
  });

  it("bounds a step by its parent's deadline, and times the parent out", async () => {
    const { final } = await system.client.run('deadline_pipeline', { ms: 4000 });
    expect(final.status).toBe('timeout');
    expect(final.error?.code).toBe('EXECUTION_TIMEOUT');
    const [nap] = await stepsOf(final);
    expect(nap?.status).toBe('timeout');
    expect(nap?.error?.message).toMatch(/deadline of the composite execution that called it/);
    // The step stopped near the parent's 1 s deadline, far from its own 4 s of sleep.
    expect(at(nap?.timestamps.completed_at) - at(final.timestamps.started_at)).toBeLessThan(3000);
  });

  it('times out a composite whose step is still queued at its deadline, and that step with it', async () => {
    // The only sleepy slot is busy for 2.5 s: the composite's step waits in the queue.
    const blocker = await system.client.invoke('sleepy', { ms: 2500 });
    expect(blocker.status).toBe(202);
    const { final } = await system.client.run('deadline_pipeline', { ms: 10 });
    expect(final.status).toBe('timeout');
    expect(final.error?.message).toMatch(/deadline while waiting for a step/);
    const [nap] = await stepsOf(final);
    expect(nap?.status).toBe('timeout');
    expect(nap?.attempts).toBe(0);
    const { final: blocked } = await system.client.waitForEnd('sleepy', String(blocker.body.execution_id));
    expect(blocked.status).toBe('completed');
  });

  it('fails the parent with STEP_FAILED naming the step when a step fails', async () => {
    const { final } = await system.client.run('failing_pipeline', {});
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('STEP_FAILED');
    expect(final.error?.message).toMatch(/^Step "boom" \(thrower@1\.0\.0\) failed: /);
    const details = final.error?.details as { step: string; execution_id: string; error: { code: string } };
    expect(details.step).toBe('boom');
    expect(details.error.code).toBe('TOOL_EXECUTION_FAILED');
    const failed = await system.client.status('thrower', details.execution_id);
    expect(failed.status).toBe('failed');
    expect(failed.parent?.execution_id).toBe(final.execution_id);
  });

  it('runs a composite written as code: ctx.invoke in sequence and in parallel, errors it catches', async () => {
    const { final } = await system.client.run('code_composite', { text: 'first middle last' });
    expect(final.status).toBe('completed');
    expect(final.output).toEqual({ count: 3, ends: ['first', 'last'], caught: 'STEP_FAILED' });
    expect(final.steps?.map(({ step, skill_id, status }) => [step, skill_id, status])).toEqual([
      ['split', 'word_list', 'completed'],
      ['first', 'echo', 'completed'],
      ['last', 'echo', 'completed'],
      ['boom', 'thrower', 'failed'],
    ]);
    expect(final.attempts).toBe(1);
  });

  it('fails a code composite that does not catch a failed step, naming the step', async () => {
    const { final } = await system.client.run('code_composite', { text: 'a b', fail: true });
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('STEP_FAILED');
    expect(final.error?.message).toMatch(/^Step "boom"/);
  });

  it('validates a step against the called skill: a step input that breaks its schema fails the step', async () => {
    // echo's text is at most 50 characters; the joined words are longer.
    const text = Array.from({ length: 12 }, (_, index) => `word${index}`).join(' ');
    const { final } = await system.client.run('join_words', { text });
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('STEP_FAILED');
    expect(final.error?.message).toMatch(/^Step "dashes" \(echo\) failed: /);
    expect(JSON.stringify(final.error?.details)).toContain('/steps/dashes/input/text');
  });
});

describe('a composite whose steps are hosted by another worker', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR });
    // The steps' worker first: a composite's worker checks at start that what it calls exists.
    await system.addWorker({ WORKER_SKILLS: 'word_list,echo', WORKER_ID: 'steps-worker' });
    await system.addWorker({ WORKER_SKILLS: 'join_words', WORKER_ID: 'composite-worker' });
  });
  afterAll(() => system?.stop());

  it('runs each step on the worker that hosts its skill', async () => {
    const { final } = await system.client.run('join_words', { text: 'far away' });
    expect(final.status).toBe('completed');
    expect(final.output).toMatchObject({ joined: 'far-away' });
    const [stepsWorker, compositeWorker] = system.workers;
    const ran = (worker: typeof stepsWorker, id?: string) =>
      worker?.logs.some((line) => line.msg === 'execution completed' && line.execution_id === id);
    // The line comes once Redis has confirmed the outcome: possibly after the client saw it.
    await expect.poll(() => ran(compositeWorker, final.execution_id)).toBe(true);
    const launched = (final.steps ?? []).filter((step) => step.execution_id);
    expect(launched).toHaveLength(2);
    for (const step of launched) {
      await expect.poll(() => ran(stepsWorker, step.execution_id)).toBe(true);
      expect(ran(compositeWorker, step.execution_id)).toBe(false);
    }
  });
});
