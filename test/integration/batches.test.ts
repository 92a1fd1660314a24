import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BatchAccepted, BatchView, ErrorEnvelope, Execution, ExecutionListPage } from '@skillrun/core';
import { RedisKeys, skillQueueName } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/client';
import { TestSystem } from '../support/system';

type Slot = BatchAccepted['executions'][number];

const ms = (iso: string | undefined) => Date.parse(iso ?? '');

const keys = new RedisKeys('{skillrun}');

/** `burst` may invoke echo 3 times per 5 minutes: a batch of 5 is over it by 2. */
const LIMITS = { callers: { burst: { skills: { echo: { rate: { requests: 3, per_seconds: 300 } } } } } };

describe('batches: POST /batches, GET /batches/{id}, POST /batches/{id}/cancel', () => {
  let system: TestSystem;
  let client: Client;
  let redis: Redis;
  const apiKeys: Record<string, string> = {};
  const gates: string[] = [];
  const as = (caller: string) => ({ 'x-api-key': apiKeys[caller] ?? '' });

  beforeAll(async () => {
    system = await TestSystem.start({ LIMITS: JSON.stringify(LIMITS) });
    redis = new Redis(system.redis.url);
    await Promise.all([
      system.addWorker({ WORKER_SKILLS: 'echo,sleepy', WORKER_CONCURRENCY: '8' }),
      // One gated execution at a time: the others of a batch wait in the queue.
      system.addWorker({ WORKER_SKILLS: 'gated', WORKER_CONCURRENCY: '1' }),
    ]);
    client = system.client;
    for (const caller of ['alice', 'bob', 'burst']) apiKeys[caller] = await client.createKey(caller);
  });
  afterAll(async () => {
    redis?.disconnect();
    await Promise.all(gates.map((gate) => rm(gate, { force: true })));
    await system?.stop();
  });

  function submit(caller: string, items: unknown[], headers: Record<string, string> = {}) {
    return client.request<BatchAccepted & Partial<ErrorEnvelope>>('/batches', {
      json: { caller: { id: caller, type: 'user' }, items },
      headers: { ...as(caller), ...headers },
    });
  }

  function read(caller: string, batchId: string, headers: Record<string, string> = {}) {
    return client.request<BatchView & Partial<ErrorEnvelope>>(`/batches/${batchId}`, {
      headers: { ...as(caller), ...headers },
    });
  }

  const idOf = (slot: Slot | undefined) => (slot && 'execution_id' in slot ? slot.execution_id : undefined);
  const codeOf = (slot: Slot | undefined) => (slot && 'error' in slot ? slot.error.code : undefined);

  function newGate(): string {
    const gate = join(tmpdir(), `skillrun-batch-gate-${process.pid}-${gates.length}`);
    gates.push(gate);
    return gate;
  }

  it('answers each item in its place: an invalid one its error, the others run to their end', async () => {
    const answer = await submit('alice', [
      { skill_id: 'echo', inputs: { text: 'one' } },
      { skill_id: 'echo', inputs: { text: 42 } },
      { skill_id: 'no_such_skill', inputs: {} },
      { skill_id: 'echo', version: '^1', inputs: { text: 'two' }, context: { priority: 'high' } },
      { skill_id: 'echo', input: { text: 'typo' } },
      { skill_id: 'sleepy', inputs: { ms: 10 } },
    ]);
    expect(answer.status).toBe(202);
    expect(answer.headers.get('location')).toBe(`${system.gateway.url}/batches/${answer.body.batch_id}`);
    const slots = answer.body.executions;
    expect(slots).toHaveLength(6);
    expect(slots.map(codeOf)).toEqual([
      undefined,
      'INVALID_INPUT',
      'SKILL_NOT_FOUND',
      undefined,
      'INVALID_INPUT',
      undefined,
    ]);
    expect(slots[1]).toMatchObject({
      error: { details: [expect.objectContaining({ path: '/inputs/text' })] },
    });
    const started = [slots[0], slots[3], slots[5]].map(idOf) as string[];
    const skills = ['echo', 'echo', 'sleepy'];
    for (const [index, id] of started.entries()) {
      const { final } = await client.waitForEnd(skills[index] as string, id, 20_000, as('alice'));
      expect(final).toMatchObject({ status: 'completed', batch_id: answer.body.batch_id });
    }
    const listed = await client.request<ExecutionListPage>(`/executions?batch_id=${answer.body.batch_id}`, {
      headers: as('alice'),
    });
    expect(listed.status).toBe(200);
    expect(listed.body.executions.map(({ execution_id }) => execution_id).sort()).toEqual(
      [...started].sort(),
    );
    expect(listed.body.executions.every((execution) => execution.batch_id === answer.body.batch_id)).toBe(
      true,
    );
  });

  it('answers GET /batches/{id} with Prefer: wait once every execution has ended, counted by status', async () => {
    const answer = await submit('alice', [
      { skill_id: 'sleepy', inputs: { ms: 300 } },
      { skill_id: 'echo', inputs: { text: 'x' } },
      { skill_id: 'sleepy', inputs: { ms: 600 } },
      { skill_id: 'echo', inputs: {} },
    ]);
    expect(answer.status).toBe(202);
    const ended = await read('alice', answer.body.batch_id, { prefer: 'wait=30' });
    expect(ended.status).toBe(200);
    expect(ended.headers.get('preference-applied')).toBe('wait=30');
    expect(ended.body).toMatchObject({
      batch_id: answer.body.batch_id,
      caller: { id: 'alice', type: 'user' },
      items: 4,
      ended: true,
      counts: { accepted: 0, running: 0, completed: 3, failed: 0, timeout: 0, canceled: 0 },
    });
    expect(ended.body.executions).toEqual(
      [0, 1, 2].map((index) => ({
        execution_id: idOf(answer.body.executions[index]),
        skill_id: ['sleepy', 'echo', 'sleepy'][index],
        status: 'completed',
      })),
    );
  });

  it('cancels every execution of a batch that has not ended: the running one and those waiting', async () => {
    const gate = newGate();
    const answer = await submit('alice', [
      { skill_id: 'gated', inputs: { gate } },
      { skill_id: 'gated', inputs: { gate } },
      { skill_id: 'gated', inputs: { gate } },
    ]);
    const ids = answer.body.executions.map(idOf) as string[];
    await expect
      .poll(async () => (await client.status('gated', ids[0] as string, as('alice'))).status)
      .toBe('running');
    const waiting = await read('alice', answer.body.batch_id);
    expect(waiting.body).toMatchObject({ ended: false, counts: { running: 1, accepted: 2 } });
    expect(waiting.headers.get('retry-after')).toBe('1');
    const canceled = await client.request<BatchView>(`/batches/${answer.body.batch_id}/cancel`, {
      method: 'POST',
      headers: as('alice'),
    });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ ended: true, counts: { canceled: 3, running: 0, accepted: 0 } });
    // Nothing of it runs afterwards, even once the gate opens.
    await writeFile(gate, 'open');
    const after = await read('alice', answer.body.batch_id, { prefer: 'wait=5' });
    expect(after.body.counts).toMatchObject({ canceled: 3, completed: 0 });
    for (const id of ids) expect((await client.status('gated', id, as('alice'))).status).toBe('canceled');
  });

  it("answers another caller's batch as an unknown one: 404 BATCH_NOT_FOUND, and cancels nothing", async () => {
    const answer = await submit('alice', [{ skill_id: 'echo', inputs: { text: 'mine' } }]);
    for (const id of [answer.body.batch_id, '00000000-0000-4000-8000-000000000000', 'not-a-batch']) {
      const theirs = await read('bob', id);
      expect(theirs.status, id).toBe(404);
      expect(theirs.body.error?.code).toBe('BATCH_NOT_FOUND');
    }
    const cancel = await client.request<Partial<ErrorEnvelope>>(`/batches/${answer.body.batch_id}/cancel`, {
      method: 'POST',
      headers: as('bob'),
    });
    expect(cancel.status).toBe(404);
    expect((await read('alice', answer.body.batch_id)).status).toBe(200);
  });

  it('refuses a body that is not a batch whole: 1,001 items, none, or malformed (400 envelope)', async () => {
    const item = { skill_id: 'echo', inputs: { text: 'x' } };
    for (const body of [
      { caller: { id: 'alice', type: 'user' }, items: Array(1001).fill(item) },
      { caller: { id: 'alice', type: 'user' }, items: [] },
      { items: [item] },
      { caller: { id: 'alice', type: 'user' }, items: item },
    ]) {
      const answer = await client.request<ErrorEnvelope>('/batches', { json: body, headers: as('alice') });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('INVALID_INPUT');
    }
    const header = await submit('alice', [item], { 'idempotency-key': 'k' });
    expect(header.status).toBe(400);
  });

  it('honours each item’s idempotency_key: the batch sent again gets the same executions for keyed items', async () => {
    const key = `batch-key-${Date.now()}`;
    const items = [
      { skill_id: 'echo', inputs: { text: 'keyed' }, idempotency_key: `${key}-a` },
      { skill_id: 'echo', inputs: { text: 'free' } },
      { skill_id: 'echo', inputs: { text: 'keyed too' }, idempotency_key: `${key}-b` },
    ];
    const first = await submit('alice', items);
    const again = await submit('alice', items);
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    const [a1, free1, b1] = first.body.executions.map(idOf);
    const [a2, free2, b2] = again.body.executions.map(idOf);
    expect([a2, b2]).toEqual([a1, b1]);
    expect(free2).not.toBe(free1);
    // The same key with another item is refused in its place (as POST invoke would, 422).
    const reused = await submit('alice', [{ ...items[0], inputs: { text: 'changed' } }]);
    expect(reused.body.executions.map(codeOf)).toEqual(['IDEMPOTENCY_KEY_REUSED']);
    // Twice in one batch: one execution for both places; with another item, refused in its place.
    const twice = { skill_id: 'echo', inputs: { text: 'twice' }, idempotency_key: `${key}-c` };
    const within = await submit('alice', [twice, twice, { ...twice, inputs: { text: 'other' } }]);
    const [c1, c2] = within.body.executions.map(idOf);
    expect(c1).toEqual(expect.any(String));
    expect(c2).toBe(c1);
    expect(codeOf(within.body.executions[2])).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(
      (await read('alice', within.body.batch_id)).body.executions.map(({ execution_id }) => execution_id),
    ).toEqual([c1]);
  });

  it("counts each item against the caller's rate limit: those over it are refused in place (429), the first ones run", async () => {
    const items = ['1', '2', '3', '4', '5'].map((text) => ({ skill_id: 'echo', inputs: { text } }));
    const answer = await submit('burst', items);
    expect(answer.status).toBe(202);
    expect(answer.body.executions.map(codeOf)).toEqual([
      undefined,
      undefined,
      undefined,
      'RATE_LIMIT_EXCEEDED',
      'RATE_LIMIT_EXCEEDED',
    ]);
    expect(answer.headers.get('ratelimit')).toContain('r=0');
    const ended = await read('burst', answer.body.batch_id, { prefer: 'wait=20' });
    expect(ended.body).toMatchObject({ items: 5, ended: true, counts: { completed: 3 } });
  });

  it("starts an item with context.delay_ms when it is due: launched with the others, its job in its queue's delayed set", async () => {
    const answer = await submit('alice', [
      { skill_id: 'echo', inputs: { text: 'now' } },
      { skill_id: 'echo', inputs: { text: 'later' }, context: { delay_ms: 2000 } },
      // Past MAX_DELAY_MS (30 days): refused in its place.
      { skill_id: 'echo', inputs: { text: 'never' }, context: { delay_ms: 2_592_000_001 } },
    ]);
    expect(answer.status).toBe(202);
    expect(answer.body.executions.map(codeOf)).toEqual([undefined, undefined, 'PARAM_OUT_OF_RANGE']);
    const later = idOf(answer.body.executions[1]) as string;
    const waiting = await client.status('echo', later, as('alice'));
    expect(waiting.status).toBe('accepted');
    expect(ms(waiting.timestamps.scheduled_for) - ms(waiting.timestamps.created_at)).toBe(2000);
    const delayed = `{skillrun}:${skillQueueName('echo', waiting.skill_version)}:delayed`;
    expect(await redis.zscore(delayed, later)).not.toBeNull();
    const ended = await read('alice', answer.body.batch_id, { prefer: 'wait=20' });
    expect(ended.body).toMatchObject({ items: 3, ended: true, counts: { completed: 2 } });
    const final = await client.status('echo', later, as('alice'));
    expect(ms(final.timestamps.started_at)).toBeGreaterThanOrEqual(ms(final.timestamps.scheduled_for));
  });

  it('refuses an item with context.debounce in its place (400): the others run', async () => {
    const answer = await submit('alice', [
      { skill_id: 'echo', inputs: { text: 'plain' } },
      { skill_id: 'echo', inputs: { text: 'collapsed' }, context: { debounce: { key: 'k', delay_ms: 100 } } },
    ]);
    expect(answer.status).toBe(202);
    expect(answer.body.executions.map(codeOf)).toEqual([undefined, 'INVALID_INPUT']);
    expect(answer.body.executions[1]).toMatchObject({
      error: { details: [expect.objectContaining({ path: '/context/debounce' })] },
    });
    const ended = await read('alice', answer.body.batch_id, { prefer: 'wait=20' });
    expect(ended.body).toMatchObject({ items: 2, ended: true, counts: { completed: 1 } });
  });

  it('keeps a batch as long as its executions: each end renews its expiry from then', async () => {
    const gate = newGate();
    const answer = await submit('alice', [{ skill_id: 'gated', inputs: { gate } }]);
    const key = keys.batch(answer.body.batch_id);
    const created = Number(await redis.call('PEXPIRETIME', key));
    expect(created).toBeGreaterThan(0);
    await writeFile(gate, 'open');
    const ended = await read('alice', answer.body.batch_id, { prefer: 'wait=20' });
    expect(ended.body.counts.completed).toBe(1);
    expect(Number(await redis.call('PEXPIRETIME', key))).toBeGreaterThan(created);
  });

  it('shows the batch on every execution it started, as GET status reads it', async () => {
    const answer = await submit('alice', [{ skill_id: 'echo', inputs: { text: 'linked' } }]);
    const status = await client.request<Execution>(`/skills/echo/status/${idOf(answer.body.executions[0])}`, {
      headers: as('alice'),
    });
    expect(status.body.batch_id).toBe(answer.body.batch_id);
  });
});
