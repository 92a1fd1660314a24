import { RedisKeys } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { ADMIN_HEADERS, type StartedGateway } from '../support/service-process';
import { TestSystem } from '../support/system';

type Envelope = { error: { code: string; recoverable: boolean } };

const keys = new RedisKeys('{skillrun}');
const echo = { text: 'hi', count: 1 };

describe('Idempotency-Key on POST invoke', () => {
  let system: TestSystem;
  let replica: StartedGateway;
  let redis: Redis;
  let client: Client;
  let n = 0;
  /** A key no other test uses. */
  const freshKey = () => `key-${Date.now()}-${n++}`;

  beforeAll(async () => {
    system = await TestSystem.start();
    [replica] = await Promise.all([system.addGateway(), system.addWorker({ WORKER_SKILLS: 'echo' })]);
    redis = new Redis(system.redis.url);
    client = system.client;
  });
  afterAll(async () => {
    redis?.disconnect();
    await system?.stop();
  });

  /** Execution records in Redis (outcome strings beside them are not records). */
  async function recordCount(): Promise<number> {
    const found = await redis.keys(`${keys.execution('*')}`);
    return found.filter((key) => !key.endsWith(':outcome')).length;
  }

  it('answers a repeat with the execution the first request started, marked as a replay, and starts nothing', async () => {
    const key = freshKey();
    const first = await client.invoke('echo', echo, {}, { 'idempotency-key': key });
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const before = await recordCount();
    const again = await client.invoke('echo', echo, {}, { 'idempotency-key': `"${key}"` });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await recordCount()).toBe(before);
    const { final } = await client.waitForEnd('echo', String(first.body.execution_id));
    expect(final.status).toBe('completed');
  });

  it('starts one execution for 50 identical requests sent at once through two gateways', async () => {
    const key = freshKey();
    const before = await recordCount();
    const gateways = [client, new Client(replica.url)];
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        gateways[i % 2]?.invoke('echo', echo, {}, { 'idempotency-key': key }),
      ),
    );
    const statuses = answers.map((answer) => answer?.status);
    expect(statuses).toEqual(Array(50).fill(202));
    const ids = new Set(answers.map((answer) => answer?.body.execution_id));
    expect(ids.size).toBe(1);
    expect(answers.filter((answer) => answer?.headers.get('idempotent-replayed') === 'true')).toHaveLength(
      49,
    );
    expect(await recordCount()).toBe(before + 1);
    const [id] = ids;
    const { final } = await client.waitForEnd('echo', String(id));
    expect(final.status).toBe('completed');
    // One job ran: no execution but this one exists for the key's invocation.
    expect(final.attempts).toBe(1);
  });

  it('refuses the same key with a different request (422 IDEMPOTENCY_KEY_REUSED), and changes nothing', async () => {
    const key = freshKey();
    const first = await client.invoke('echo', echo, {}, { 'idempotency-key': key });
    expect(first.status).toBe(202);
    const other = await client.invoke('echo', { text: 'other', count: 1 }, {}, { 'idempotency-key': key });
    expect(other.status).toBe(422);
    expect((other.body as unknown as Envelope).error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      recoverable: false,
    });
    const again = await client.invoke('echo', echo, {}, { 'idempotency-key': key });
    expect(again.body.execution_id).toBe(first.body.execution_id);
  });

  it('keeps keys per caller: the same key from another caller starts its own execution', async () => {
    const key = freshKey();
    const created = await client.request<{ key: string }>('/admin/keys', {
      json: { caller_id: 'other-caller', scopes: ['skill:invoke', 'skill:read'] },
      headers: ADMIN_HEADERS,
    });
    const mine = await client.invoke('echo', echo, {}, { 'idempotency-key': key });
    const theirs = await client.invoke(
      'echo',
      echo,
      { caller: { id: 'other-caller', type: 'service' } },
      { 'idempotency-key': key, 'x-api-key': created.body.key },
    );
    expect(mine.status).toBe(202);
    expect(theirs.status).toBe(202);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.execution_id).not.toBe(mine.body.execution_id);
  });

  it('binds no key to a refused request: corrected and sent again with the same key, it starts', async () => {
    const key = freshKey();
    const refused = await client.invoke('echo', { text: 42 }, {}, { 'idempotency-key': key });
    expect(refused.status).toBe(400);
    const corrected = await client.invoke('echo', echo, {}, { 'idempotency-key': key });
    expect(corrected.status).toBe(202);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keeps the key across a gateway restart', async () => {
    const key = freshKey();
    const first = await client.invoke('echo', echo, {}, { 'idempotency-key': key });
    expect(first.status).toBe(202);
    const restarted = await system.addGateway();
    await system.gateway.process.stop();
    try {
      const again = await new Client(restarted.url).invoke('echo', echo, {}, { 'idempotency-key': key });
      expect(again.status).toBe(202);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.execution_id).toBe(first.body.execution_id);
    } finally {
      client = new Client(restarted.url);
    }
  });

  it('answers 400 in the error envelope for a key that is empty, too long or not visible ASCII', async () => {
    for (const bad of ['""', 'x'.repeat(256), 'clé']) {
      const answer = await new Client(replica.url).invoke('echo', echo, {}, { 'idempotency-key': bad });
      expect(answer.status, bad).toBe(400);
      expect((answer.body as unknown as Envelope).error.code).toBe('INVALID_INPUT');
    }
  });
});
