import type { ConcurrencySettings, Execution } from '@skillrun/core';
import { ConcurrencyGate, RedisKeys } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// The concurrency gate's scripts against real Redis, one step at a time, with no worker: who runs,
// who is parked, and in which order freed slots are handed on (flow-slots.lua). An execution's end
// is what its final transition does to the gate: its record turns final and it leaves the sets
// its record lists.

const keys = new RedisKeys('{gate-test}');

type Priority = Execution['priority'];

describe('the concurrency gate', () => {
  let redis: TestRedis;
  let connection: Redis;
  let gate: ConcurrencyGate;
  let skill = '';
  let skills = 0;

  beforeAll(async () => {
    redis = await startTestRedis();
    connection = new Redis(redis.url);
    gate = new ConcurrencyGate(connection, keys);
  });
  beforeEach(() => {
    skills += 1;
    skill = `skill_${skills}`;
  });
  afterAll(async () => {
    connection?.disconnect();
    await redis?.stop();
  });

  /** A new execution's record, as the gateway writes it (ids are reused from test to test). */
  async function accepted(id: string, priority: Priority): Promise<string> {
    await connection.del(keys.execution(id));
    await connection.hset(keys.execution(id), {
      status: 'accepted',
      skill_id: skill,
      skill_version: '1.0.0',
      priority,
    });
    return id;
  }

  const admit = async (
    id: string,
    key: string | undefined,
    limits: ConcurrencySettings,
    priority: Priority = 'normal',
  ) =>
    gate.admit({
      executionId: await accepted(id, priority),
      skillId: skill,
      limits,
      ...(key ? { key } : {}),
    });

  /** The execution's final transition: its record turns final, and it leaves the sets it lists. */
  async function finish(id: string, status = 'completed'): Promise<void> {
    const record = keys.execution(id);
    const slots = JSON.parse((await connection.hget(record, 'slots')) ?? '[]') as string[];
    await connection.hset(record, 'status', status);
    for (const set of slots) await connection.zrem(set, id);
  }

  /** The execution ends, then the gate hands on what it freed. */
  async function end(id: string, key: string | undefined, limits: ConcurrencySettings): Promise<string[]> {
    await finish(id);
    return (await gate.release(skill, key, limits)).map((granted) => granted.executionId);
  }

  it('parks what is over the limit, and hands a freed slot to the oldest parked', async () => {
    const limits = { limit: 1 };
    expect((await admit('a', undefined, limits)).verdict).toBe('run');
    expect((await admit('b', undefined, limits)).verdict).toBe('parked');
    expect((await admit('c', undefined, limits)).verdict).toBe('parked');
    expect(await gate.parked(skill)).toBe(2);
    expect(await end('a', undefined, limits)).toEqual(['b']);
    // b's job, promoted, is taken: it holds its slot, and BullMQ's one start of its park is told.
    expect(await gate.admit({ executionId: 'b', skillId: skill, limits })).toMatchObject({
      verdict: 'run',
      parks: 1,
    });
    expect(await connection.hget(keys.execution('b'), 'waiting_for')).toBeNull();
    expect(await end('b', undefined, limits)).toEqual(['c']);
    expect(await gate.parked(skill)).toBe(0);
  });

  it('gives keys turns, so that a key with many parked does not go first every time', async () => {
    const limits = { limit: 1, per_key: 5 };
    expect((await admit('a1', 'a', limits)).verdict).toBe('run');
    for (const id of ['a2', 'a3', 'a4']) expect((await admit(id, 'a', limits)).verdict).toBe('parked');
    expect((await admit('b1', 'b', limits)).verdict).toBe('parked');
    expect((await admit('c1', 'c', limits)).verdict).toBe('parked');
    const order = [];
    let ending = { id: 'a1', key: 'a' };
    for (let turn = 0; turn < 5; turn++) {
      const [next] = await end(ending.id, ending.key, limits);
      order.push(next);
      ending = { id: next as string, key: (next as string).slice(0, 1) };
    }
    expect(order).toEqual(['a2', 'b1', 'c1', 'a3', 'a4']);
  });

  it('never lets a key at its own limit hold back another key', async () => {
    const limits = { limit: 3, per_key: 1 };
    expect((await admit('a1', 'a', limits)).verdict).toBe('run');
    for (const id of ['a2', 'a3', 'a4']) expect((await admit(id, 'a', limits)).verdict).toBe('parked');
    expect((await admit('b1', 'b', limits)).verdict).toBe('run');
    expect((await admit('c1', 'c', limits)).verdict).toBe('run');
    expect((await admit('d1', 'd', limits)).verdict).toBe('parked');
    // b1's end frees a slot of the skill, not of key a: d1, not a2, gets it.
    expect(await end('b1', 'b', limits)).toEqual(['d1']);
    expect(await end('a1', 'a', limits)).toEqual(['a2']);
  });

  it('counts per key alone when the skill has no limit of its own', async () => {
    const limits = { per_key: 2 };
    expect((await admit('x1', 'x', limits)).verdict).toBe('run');
    expect((await admit('x2', 'x', limits)).verdict).toBe('run');
    expect((await admit('x3', 'x', limits)).verdict).toBe('parked');
    expect((await admit('y1', 'y', limits)).verdict).toBe('run');
    expect(await end('x1', 'x', limits)).toEqual(['x3']);
  });

  it('skips parked executions that ended while they waited, and lets go slots a lost release left', async () => {
    const limits = { limit: 1 };
    expect((await admit('p1', undefined, limits)).verdict).toBe('run');
    expect((await admit('p2', undefined, limits)).verdict).toBe('parked');
    expect((await admit('p3', undefined, limits)).verdict).toBe('parked');
    await connection.hset(keys.execution('p2'), 'status', 'canceled');
    // p1 ends without its sets being left (a lost release): the next admission a second later
    // (the set is repaired at most once a second) lets its slot go.
    await connection.hset(keys.execution('p1'), 'status', 'completed');
    await connection.del(`${keys.flow.skill(skill)}running:repaired`);
    const admission = await admit('p4', undefined, limits);
    expect(admission.verdict).toBe('parked');
    expect(admission.granted.map((granted) => granted.executionId)).toEqual(['p3']);
    expect(await gate.parked(skill)).toBe(1);
    expect((await gate.admit({ executionId: 'p2', skillId: skill, limits })).verdict).toBe('ended');
  });

  it("serves a key's parked of high priority first, each priority oldest first, keys still in turn", async () => {
    const limits = { limit: 1, per_key: 5 };
    expect((await admit('a1', 'a', limits)).verdict).toBe('run');
    expect((await admit('a2', 'a', limits, 'low')).verdict).toBe('parked');
    expect((await admit('a3', 'a', limits)).verdict).toBe('parked');
    expect((await admit('b1', 'b', limits)).verdict).toBe('parked');
    expect((await admit('a4', 'a', limits, 'high')).verdict).toBe('parked');
    const order = [];
    let ending = { id: 'a1', key: 'a' };
    for (let turn = 0; turn < 4; turn++) {
      const [next] = await end(ending.id, ending.key, limits);
      order.push(next);
      ending = { id: next as string, key: (next as string).slice(0, 1) };
    }
    // a4 goes ahead of a's earlier ones, not of key b's turn.
    expect(order).toEqual(['a4', 'b1', 'a3', 'a2']);
    expect(await gate.parked(skill)).toBe(0);
  });

  it('hands on the slots of an execution ended elsewhere from what its record says of the limits', async () => {
    const limits = { limit: 3, per_key: 1 };
    expect((await admit('h1', 'h', limits)).verdict).toBe('run');
    expect((await admit('h2', 'h', limits)).verdict).toBe('parked');
    expect((await admit('h3', 'h', limits, 'low')).verdict).toBe('parked');
    // h2 is canceled while it waits, h1 as it runs: whoever cancels them knows nothing of the skill.
    await finish('h2', 'canceled');
    expect(await gate.releaseHeldBy('h2')).toBeNull();
    await finish('h1', 'canceled');
    expect(await gate.releaseHeldBy('h1')).toEqual({
      skillId: skill,
      granted: [{ executionId: 'h3', version: '1.0.0', priority: 'low' }],
    });
    expect(await gate.releaseHeldBy('h1')).toEqual({ skillId: skill, granted: [] });
    expect(await gate.parked(skill)).toBe(0);
  });
});
