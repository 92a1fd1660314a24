import type { ExecutionListPage } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/client';
import { ADMIN_HEADERS } from '../support/service-process';
import { TestSystem } from '../support/system';

type Listed = ExecutionListPage['executions'][number];

describe('GET /executions: history with filters and cursor pages', () => {
  let system: TestSystem;
  let client: Client;
  const keys: Record<string, string> = {};
  const as = (caller: string) => ({ 'x-api-key': keys[caller] ?? '' });
  /** Alice's executions, oldest first, with how each ended (or `running`). */
  const alice: { id: string; skill: string; status: string }[] = [];
  let between = '';

  const invokeAs = (caller: string, skill: string, inputs: unknown) =>
    client.invokeAs(caller, skill, inputs, as(caller));
  const endOf = async (caller: string, skill: string, id: string) =>
    (await client.waitForEnd(skill, id, undefined, as(caller))).final.status;

  async function list(query: string, headers: Record<string, string>) {
    return client.request<ExecutionListPage & { error?: { code: string } }>(`/executions${query}`, {
      headers,
    });
  }

  /** Every page, following next_cursor. */
  async function all(query: string, headers: Record<string, string>): Promise<Listed[]> {
    const seen: Listed[] = [];
    let cursor: string | null = null;
    do {
      const separator = query ? '&' : '?';
      const page = await list(`${query}${cursor ? `${separator}cursor=${cursor}` : ''}`, headers);
      expect(page.status).toBe(200);
      seen.push(...page.body.executions);
      cursor = page.body.next_cursor;
    } while (cursor);
    return seen;
  }

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ WORKER_CONCURRENCY: '8' });
    client = system.client;
    for (const caller of ['alice', 'bob']) keys[caller] = await client.createKey(caller);
    const run = async (skill: string, inputs: unknown) => {
      const id = await invokeAs('alice', skill, inputs);
      alice.push({ id, skill, status: await endOf('alice', skill, id) });
    };
    for (const text of ['a', 'b', 'c']) await run('echo', { text });
    await run('thrower', {});
    between = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await run('echo', { text: 'd' });
    await run('thrower', {});
    const canceled = await invokeAs('alice', 'sleepy', { ms: 600_000 });
    await client.request(`/skills/sleepy/cancel/${canceled}`, { method: 'POST', headers: as('alice') });
    alice.push({ id: canceled, skill: 'sleepy', status: 'canceled' });
    const running = await invokeAs('alice', 'sleepy', { ms: 600_000 });
    alice.push({ id: running, skill: 'sleepy', status: 'running' });
    for (const text of ['x', 'y']) await endOf('bob', 'echo', await invokeAs('bob', 'echo', { text }));
  });
  afterAll(() => system?.stop());

  it('shows a caller its own executions, newest first, each as status shows it but without its output', async () => {
    const page = await list('', as('alice'));
    expect(page.status).toBe(200);
    expect(page.body.next_cursor).toBeNull();
    expect(page.body.executions.map(({ execution_id }) => execution_id)).toEqual(
      alice.map(({ id }) => id).reverse(),
    );
    expect(page.body.executions.map(({ status }) => status)).toEqual(
      alice
        .map(({ status }) => (status === 'running' ? expect.stringMatching(/^(accepted|running)$/) : status))
        .reverse(),
    );
    expect(alice.map(({ status }) => status)).toEqual([
      'completed',
      'completed',
      'completed',
      'failed',
      'completed',
      'failed',
      'canceled',
      'running',
    ]);
    for (const execution of page.body.executions) expect(execution).not.toHaveProperty('output');
    const failed = page.body.executions.find(({ status }) => status === 'failed');
    expect(failed?.error?.code).toBe('TOOL_EXECUTION_FAILED');
  });

  it('filters by skill, by statuses and by time', async () => {
    const ids = (executions: Listed[]) => executions.map(({ execution_id }) => execution_id);
    const expected = (keep: (entry: (typeof alice)[number], index: number) => boolean) =>
      alice
        .filter(keep)
        .map(({ id }) => id)
        .reverse();
    expect(ids(await all('?skill_id=echo', as('alice')))).toEqual(expected(({ skill }) => skill === 'echo'));
    expect(ids(await all('?status=failed,canceled', as('alice')))).toEqual(
      expected(({ status }) => status === 'failed' || status === 'canceled'),
    );
    expect(ids(await all(`?since=${between}`, as('alice')))).toEqual(expected((_, index) => index >= 4));
    expect(ids(await all(`?until=${between}`, as('alice')))).toEqual(expected((_, index) => index < 4));
    expect(ids(await all(`?skill_id=thrower&since=${between}`, as('alice')))).toEqual([alice[5]?.id]);
  });

  it('pages with a cursor: every execution once, in order', async () => {
    const first = await list('?limit=3', as('alice'));
    expect(first.body.executions).toHaveLength(3);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const paged = await all('?limit=3', as('alice'));
    expect(paged.map(({ execution_id }) => execution_id)).toEqual(alice.map(({ id }) => id).reverse());
  });

  it('goes on from a cursor given out before the index had a place per vshard ({hour, before})', async () => {
    const first = await list('?limit=3', as('alice'));
    const { p } = JSON.parse(Buffer.from(first.body.next_cursor ?? '', 'base64url').toString()) as {
      p: [[number, number]];
    };
    const [[hour, before]] = p;
    const earlier = Buffer.from(JSON.stringify({ hour, before })).toString('base64url');
    const second = await list(`?limit=3&cursor=${first.body.next_cursor}`, as('alice'));
    expect((await list(`?limit=3&cursor=${earlier}`, as('alice'))).body).toEqual(second.body);
  });

  it("lets an admin list everyone's, or one caller's; no one else another caller's", async () => {
    const everyone = await all('', ADMIN_HEADERS);
    expect(everyone.filter(({ caller }) => caller.id === 'bob')).toHaveLength(2);
    expect(everyone.filter(({ caller }) => caller.id === 'alice')).toHaveLength(alice.length);
    const bobs = await all('?caller_id=bob', ADMIN_HEADERS);
    expect(bobs.map(({ caller }) => caller.id)).toEqual(['bob', 'bob']);
    expect((await all('', as('bob'))).map(({ caller }) => caller.id)).toEqual(['bob', 'bob']);
    const refused = await list('?caller_id=alice', as('bob'));
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe('ACCESS_DENIED');
  });

  it('answers 401 without credentials and 400 for a bad query, in the error envelope', async () => {
    const anonymous = await list('', {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error?.code).toBe('AUTH_REQUIRED');
    for (const query of [
      '?cursor=bm90IGEgY3Vyc29y',
      '?status=done',
      '?limit=0',
      '?since=yesterday',
      `?since=${between}&until=${between}`,
      '?colour=red',
    ]) {
      const answer = await list(query, as('alice'));
      expect(answer.status, query).toBe(400);
      expect(answer.body.error?.code, query).toBe('INVALID_INPUT');
    }
  });
});
