import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Execution, ExecutionListPage } from '@skillrun/core';
import type { RedisCluster } from '@skillrun/redis-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSkillrun } from '../support/cli-process';
import type { Answer } from '../support/client';
import { ADMIN_HEADERS, fixtureSkills } from '../support/service-process';
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

  it('takes --tag and --metadata on skillrun invoke, and lists by them with skillrun executions', async () => {
    const env = { SKILLRUN_URL: system.gateway.url, SKILLRUN_API_KEY: await system.client.createKey('cli') };
    const invoked = await runSkillrun(
      [
        'invoke',
        'echo',
        'text=hi',
        '--tag',
        'cli:a',
        '--tag',
        'cli:b',
        '--metadata',
        '{"k":"v"}',
        '--wait',
        '--json',
      ],
      { env },
    );
    expect(invoked.code, invoked.stderr).toBe(0);
    const other = await runSkillrun(['invoke', 'echo', 'text=other', '--tag', 'cli:a', '--wait'], { env });
    expect(other.code, other.stderr).toBe(0);
    const byBoth = await runSkillrun(['executions', '--tag', 'cli:a', '--tag', 'cli:b', '--json'], { env });
    expect(byBoth.code, byBoth.stderr).toBe(0);
    const listed = (JSON.parse(byBoth.stdout) as ExecutionListPage).executions;
    expect(listed.map(({ tags, metadata }) => [tags, metadata])).toEqual([[['cli:a', 'cli:b'], { k: 'v' }]]);
    const byOne = await runSkillrun(['executions', '--tag', 'cli:a', '--json'], { env });
    expect((JSON.parse(byOne.stdout) as ExecutionListPage).executions).toHaveLength(2);
    const byValue = await runSkillrun(['executions', '--metadata', 'k=v', '--json'], { env });
    expect((JSON.parse(byValue.stdout) as ExecutionListPage).executions).toHaveLength(1);
    const refused = await runSkillrun(['invoke', 'echo', 'text=x', '--tag', 'not ok'], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/context\/tags\/0|context -> tags -> 0/);
  });

  it("takes tags and metadata in a batch item's context and a schedule's, and refuses bad ones there too", async () => {
    const headers = { 'x-api-key': await system.client.createKey('planner') };
    const context = { tags: ['batch:1'], metadata: { lot: 7 } };
    const batch = await system.client.request<{ executions: { execution_id?: string; error?: unknown }[] }>(
      '/batches',
      {
        json: {
          caller: { id: 'planner', type: 'user' },
          items: [
            { skill_id: 'echo', inputs: { text: 'a' }, context },
            { skill_id: 'echo', inputs: { text: 'b' }, context: { tags: ['bad tag'] } },
          ],
        },
        headers,
      },
    );
    expect(batch.status).toBe(202);
    const [good, bad] = batch.body.executions;
    expect(bad).toHaveProperty('error');
    const item = await system.client.waitForEnd('echo', String(good?.execution_id), undefined, headers);
    expect([item.final.tags, item.final.metadata]).toEqual([context.tags, context.metadata]);

    const schedule = { skill_id: 'echo', every_ms: 1000, inputs: { text: 'tick' } };
    const refused = await system.client.request<Refusal>('/schedules', {
      json: { ...schedule, context: { metadata: { blob: 'x'.repeat(5000) } } },
      headers,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details?.map((detail) => detail.path)).toContain('/context/metadata');
    const created = await system.client.request<{ schedule_id: string }>('/schedules', {
      json: { ...schedule, context: { tags: ['nightly'], metadata: { team: 'ops' } } },
      headers,
    });
    expect(created.status).toBe(201);
    const runs = () =>
      system.client
        .request<ExecutionListPage>(
          `/executions?schedule_id=${created.body.schedule_id}&tag=nightly&metadata.team=ops`,
          {
            headers,
          },
        )
        .then((page) => page.body.executions.length);
    await expect.poll(runs, { timeout: 15_000 }).toBeGreaterThan(0);
    await system.client.request(`/schedules/${created.body.schedule_id}`, { method: 'DELETE', headers });
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

/**
 * Nine executions, tagged by colour and size, with an order number in their metadata; then every
 * page of two of each listing, following next_cursor: every match once, nothing else.
 */
function listsByTagsAndMetadata(start: () => Promise<TestSystem | TestSystem<RedisCluster>>) {
  let system: TestSystem | TestSystem<RedisCluster>;
  const launched: { id: string; tags: string[]; order: number }[] = [];

  async function all(query: string): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Answer<ExecutionListPage> = await system.client.request<ExecutionListPage>(
        `/executions?limit=2${query}${cursor ? `&cursor=${cursor}` : ''}`,
        { headers: ADMIN_HEADERS },
      );
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      seen.push(...page.body.executions.map((execution) => execution.execution_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    return seen.sort();
  }
  const idsOf = (keep: (execution: (typeof launched)[number]) => boolean) =>
    launched
      .filter(keep)
      .map(({ id }) => id)
      .sort();

  beforeAll(async () => {
    system = await start();
    for (let order = 0; order < 9; order++) {
      const tags = [['red', 'green', 'blue'][order % 3] as string, order < 4 ? 'small' : 'large'];
      const context = { tags, metadata: { order: `o-${order}`, even: order % 2 === 0 } };
      const answer = await system.client.invoke('echo', { text: String(order) }, { context });
      expect(answer.status).toBe(202);
      launched.push({ id: String(answer.body.execution_id), tags, order });
    }
  });
  afterAll(() => system?.stop());

  it('lists by tags: all of them by default, any of them with tag_match=any, repeated or comma-separated', async () => {
    const redSmall = idsOf(({ tags }) => tags.includes('red') && tags.includes('small'));
    expect(redSmall.length).toBeGreaterThan(0);
    expect(await all('&tag=red,small')).toEqual(redSmall);
    expect(await all('&tag=red&tag=small')).toEqual(redSmall);
    const redOrBlue = idsOf(({ tags }) => tags.includes('red') || tags.includes('blue'));
    expect(await all('&tag=red,blue&tag_match=any')).toEqual(redOrBlue);
    expect(await all('&tag=red,blue')).toEqual([]);
  });

  it('lists by a metadata value: a string as it is, another JSON value as JSON', async () => {
    expect(await all('&metadata.order=o-5')).toEqual(idsOf(({ order }) => order === 5));
    expect(await all('&metadata.even=true')).toEqual(idsOf(({ order }) => order % 2 === 0));
    expect(await all('&metadata.even=true&tag=large')).toEqual(
      idsOf(({ order, tags }) => order % 2 === 0 && tags.includes('large')),
    );
  });

  it('refuses a tag filter that is not tags', async () => {
    const answer = await system.client.request<Refusal>('/executions?tag=not%20a%20tag', {
      headers: ADMIN_HEADERS,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.details?.map((detail) => detail.path)).toContain('/tag');
  });
}

describe('GET /executions by tags and metadata', () => {
  listsByTagsAndMetadata(async () => {
    const system = await TestSystem.start();
    await system.addWorker({ WORKER_CONCURRENCY: '4' });
    return system;
  });
});

describe('GET /executions by tags and metadata over three masters, REDIS_SHARDS=3', () => {
  listsByTagsAndMetadata(async () => {
    const system = await TestSystem.startOnCluster({ REDIS_SHARDS: '3' });
    await system.addWorker({ WORKER_CONCURRENCY: '4' });
    return system;
  });
});
