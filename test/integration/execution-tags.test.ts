import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Execution } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSkills } from '../support/service-process';
import { TestSystem } from '../support/system';

const compositeSkills = fileURLToPath(new URL('../fixtures/composite-skills', import.meta.url));

interface Refusal {
  error: { code: string; details?: { path: string }[] };
}

describe('context.tags and context.metadata: kept on the execution, inherited by its steps', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR: [fixtureSkills, compositeSkills].join(delimiter) });
    await system.addWorker({ WORKER_CONCURRENCY: '4' });
  });
  afterAll(() => system?.stop());

  it('answers the tags and metadata an invocation sent on status and result, and a replay keeps them', async () => {
    const context = { tags: ['customer:42', 'env/prod'], metadata: { order: 'A-7', items: [1, 2] } };
    const { final } = await system.client.run('echo', { text: 'hi' }, { context });
    expect(final.status).toBe('completed');
    expect([final.tags, final.metadata]).toEqual([context.tags, context.metadata]);
    const result = await system.client.request<Execution>(`/skills/echo/result/${final.execution_id}`);
    expect([result.body.tags, result.body.metadata]).toEqual([context.tags, context.metadata]);
    const replay = await system.client.request<Execution>(`/skills/echo/replay/${final.execution_id}`, {
      method: 'POST',
    });
    expect(replay.status).toBe(202);
    const replayed = await system.client.waitForEnd('echo', replay.body.execution_id);
    expect([replayed.final.tags, replayed.final.metadata]).toEqual([context.tags, context.metadata]);
    const untagged = await system.client.run('echo', { text: 'plain' });
    expect(untagged.final).not.toHaveProperty('tags');
    expect(untagged.final).not.toHaveProperty('metadata');
  });

  it("gives a composite's steps its tags and metadata", async () => {
    const context = { tags: ['pipeline'], metadata: { run: 'nightly' } };
    const { final } = await system.client.run('join_words', { text: 'alpha beta' }, { context });
    expect(final.status).toBe('completed');
    const launched = (final.steps ?? []).filter((step) => step.execution_id);
    expect(launched.length).toBeGreaterThan(0);
    for (const step of launched) {
      const child = await system.client.status(step.skill_id, String(step.execution_id));
      expect([child.tags, child.metadata]).toEqual([context.tags, context.metadata]);
    }
  });

  it.each([
    ['eleven tags', { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, '/context/tags'],
    ['a tag with a space', { tags: ['ok', 'not ok'] }, '/context/tags/1'],
    ['an empty tag', { tags: [''] }, '/context/tags/0'],
    ['a repeated tag', { tags: ['a', 'a'] }, '/context/tags'],
    ['metadata over 4 KB', { metadata: { blob: 'x'.repeat(4100) } }, '/context/metadata'],
    ['metadata that is not an object', { metadata: ['a'] }, '/context/metadata'],
  ])('refuses %s with a 400 naming the path, and starts nothing', async (_, context, path) => {
    const answer = await system.client.request<Refusal>('/skills/echo/invoke', {
      json: { caller: { id: 'tagger', type: 'service' }, skill_id: 'echo', inputs: { text: 'x' }, context },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('INVALID_INPUT');
    expect(answer.body.error.details?.map((detail) => detail.path)).toContain(path);
    expect(answer.body).not.toHaveProperty('execution_id');
  });
});
