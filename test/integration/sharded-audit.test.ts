import type { AuditPage } from '@skillrun/core';
import type { RedisCluster } from '@skillrun/redis-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_HEADERS } from '../support/service-process';
import { TestSystem } from '../support/system';

// The audit log is one sorted set and a hash per record under KEY_PREFIX's hash tag: on a cluster
// with REDIS_SHARDS=3 its writes stay in one slot, so an act is recorded (not refused for a
// cross-slot write) and read back whichever gateway took it.
describe('the audit log over three masters, REDIS_SHARDS=3', () => {
  let system: TestSystem<RedisCluster>;

  beforeAll(async () => {
    system = await TestSystem.startOnCluster({ REDIS_SHARDS: '3' });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('records the acts taken by two gateways, and lists them from either', async () => {
    const other = await system.addGateway();
    const made = await system.client.request('/admin/keys', {
      json: { caller_id: 'sharded-one', scopes: ['skill:read'] },
      headers: ADMIN_HEADERS,
    });
    expect(made.status).toBe(201);
    const refused = await fetch(`${other.url}/skills/anything/pause`, { method: 'POST' });
    expect(refused.status).toBe(401);
    await expect
      .poll(async () => {
        const answer = await fetch(`${other.url}/audit?limit=10`, { headers: ADMIN_HEADERS });
        const page = (await answer.json()) as AuditPage;
        return page.records.map((record) => `${record.action} ${record.outcome}`);
      })
      .toEqual(['skill.pause refused', 'key.create succeeded']);
  });
});
