import type { AuditPage, AuditRecord } from '@skillrun/core';
import { AuditLog, RedisKeys } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDITED_ACTS } from '../../apps/gateway/src/audit/audited-acts';
import { runSkillrun } from '../support/cli-process';
import { ADMIN_HEADERS, TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

interface Envelope {
  error: { code: string; message: string };
}

const PROVIDER_SECRETS_KEY = 'provider-secrets-key-0123456789abcdef';

describe('the audit log: every administrative act recorded, refusals too, read by admins at GET /audit', () => {
  let system: TestSystem;
  let redis: Redis;
  /** An operator's key: every scope but admin. */
  let operator: Record<string, string>;

  beforeAll(async () => {
    system = await TestSystem.start({ PROVIDER_SECRETS_KEY });
    redis = new Redis(system.redis.url);
    const key = await system.client.createKey('operator-1', ['skill:invoke', 'skill:read']);
    operator = { 'x-api-key': key };
  });
  afterAll(async () => {
    redis?.disconnect();
    await system?.stop();
  });

  const audit = (query: Record<string, string> = {}, headers: Record<string, string> = ADMIN_HEADERS) =>
    system.client.requestAvailable<AuditPage & Envelope>(`/audit?${new URLSearchParams(query)}`, { headers });

  /** The records of `query` once one matches `found` (an outcome is written once the act is answered). */
  async function recordsOnce(
    query: Record<string, string>,
    found: (record: AuditRecord) => boolean,
  ): Promise<AuditRecord[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const answer = await audit({ limit: '200', ...query });
      expect(answer.status).toBe(200);
      if (answer.body.records.some(found) || Date.now() > deadline) return answer.body.records;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('records a key made by an admin with who, what, where and the outcome, never the key itself', async () => {
    const made = await system.client.request<{ key: string; record: { id: string } }>('/admin/keys', {
      json: { caller_id: 'audited-caller', scopes: ['skill:invoke'], name: 'ci' },
      headers: { ...ADMIN_HEADERS, 'x-forwarded-for': '203.0.113.9' },
    });
    expect(made.status).toBe(201);
    const records = await recordsOnce(
      { action: 'key.create' },
      (record) => record.details.caller_id === 'audited-caller' && record.outcome === 'succeeded',
    );
    const record = records.find((each) => each.details.caller_id === 'audited-caller');
    expect(record).toMatchObject({
      actor: { caller_id: 'admin', credential: 'api_key' },
      action: 'key.create',
      method: 'POST',
      path: '/admin/keys',
      details: { caller_id: 'audited-caller', scopes: ['skill:invoke'], name: 'ci' },
      outcome: 'succeeded',
      status: 201,
    });
    expect(Date.parse(record?.at ?? '')).not.toBeNaN();
    expect(record?.address).toMatch(/127\.0\.0\.1|::1/);
    const secret = made.body.key.split('_').at(-1) ?? '';
    expect(JSON.stringify((await audit({ limit: '200' })).body)).not.toContain(secret);

    await system.client.request(`/admin/keys/${made.body.record.id}`, {
      method: 'DELETE',
      headers: ADMIN_HEADERS,
    });
    const revoked = await recordsOnce({ action: 'key.revoke' }, (each) => each.outcome === 'succeeded');
    expect(revoked[0]).toMatchObject({ target: { key_id: made.body.record.id }, status: 204 });
  });

  it('records each kind of act that succeeds, with what it was on and where what it made is', async () => {
    await system.addWorker({ WORKER_SKILLS: 'echo' });
    const { client } = system;
    const id = await client.invokeAs('admin', 'echo', { text: 'audited' }, ADMIN_HEADERS);
    await client.waitForEnd('echo', id, 20_000, ADMIN_HEADERS);
    const asAdmin = (path: string, method: string, json?: unknown) =>
      client.requestAvailable<Record<string, unknown>>(path, { method, headers: ADMIN_HEADERS, json });
    expect((await asAdmin('/skills/echo/pause', 'POST')).status).toBe(200);
    expect((await asAdmin('/skills/echo/resume', 'POST')).status).toBe(200);
    const replay = await asAdmin(`/skills/echo/replay/${id}`, 'POST');
    expect(replay.status).toBe(202);
    expect(
      (await asAdmin('/executions/cancel', 'POST', { skill_id: 'echo', status: 'accepted' })).status,
    ).toBe(200);
    const schedule = await asAdmin('/schedules', 'POST', {
      skill_id: 'echo',
      inputs: { text: 'secret-input-value' },
      every_ms: 3_600_000,
      paused: true,
    });
    expect(schedule.status).toBe(201);
    const scheduleId = String(schedule.body.schedule_id);
    expect((await asAdmin(`/schedules/${scheduleId}`, 'PATCH', { every_ms: 7_200_000 })).status).toBe(200);
    expect((await asAdmin(`/schedules/${scheduleId}`, 'DELETE')).status).toBe(204);

    const expected: Array<[string, Record<string, string>, number]> = [
      ['skill.pause', { skill_id: 'echo' }, 200],
      ['skill.resume', { skill_id: 'echo' }, 200],
      ['execution.replay', { skill_id: 'echo', execution_id: id }, 202],
      ['executions.cancel', {}, 200],
      ['schedule.create', {}, 201],
      ['schedule.update', { schedule_id: scheduleId }, 200],
      ['schedule.delete', { schedule_id: scheduleId }, 204],
    ];
    for (const [action, target, status] of expected) {
      const [record] = await recordsOnce({ action, actor: 'admin', outcome: 'succeeded' }, () => true);
      expect(record, action).toMatchObject({ target, status, actor: { caller_id: 'admin' } });
    }
    const [created] = await recordsOnce({ action: 'schedule.create', outcome: 'succeeded' }, () => true);
    expect(created).toMatchObject({
      details: { skill_id: 'echo', every_ms: 3_600_000 },
      location: `/schedules/${scheduleId}`,
    });
    const [replayed] = await recordsOnce({ action: 'execution.replay', outcome: 'succeeded' }, () => true);
    expect(replayed?.location).toBe(replay.headers.get('location'));
    const [updated] = await recordsOnce({ action: 'schedule.update', outcome: 'succeeded' }, () => true);
    expect(updated?.details).toEqual({ every_ms: 7_200_000 });
    expect(JSON.stringify((await audit({ limit: '200' })).body)).not.toContain('secret-input-value');
  });

  it('records every refused act, whoever asks (no credentials, refused ones, no admin scope, a body that is not JSON)', async () => {
    const callers: Array<[Record<string, string>, AuditRecord['actor']]> = [
      [{}, { caller_id: null, credential: 'none' }],
      [{ 'x-api-key': 'srk_0000000000000000_not-a-key' }, { caller_id: null, credential: 'invalid' }],
      [operator, { caller_id: 'operator-1', credential: 'api_key' }],
    ];
    for (const act of AUDITED_ACTS) {
      const path = act.path.replace(/\{(\w+)\}/g, (_all, name: string) =>
        name === 'version' ? '1.0.0' : `audited-${name.replaceAll('_', '-')}`,
      );
      for (const [headers, actor] of callers) {
        const answer = await system.client.request<Envelope>(path, {
          method: act.method.toUpperCase(),
          headers,
          json: { caller_id: 'someone', scopes: ['admin'], from: 'x', to: 'y' },
        });
        expect(answer.status, `${act.action} by ${JSON.stringify(actor)}`).toBeGreaterThanOrEqual(400);
        const records = await recordsOnce(
          { action: act.action, outcome: 'refused' },
          (record) =>
            record.path === path &&
            record.actor.credential === actor.credential &&
            record.outcome === 'refused',
        );
        const record = records.find(
          (each) => each.path === path && each.actor.credential === actor.credential,
        );
        expect(record, `${act.action} by ${JSON.stringify(actor)}`).toMatchObject({
          actor,
          status: answer.status,
          error_code: answer.body.error.code,
        });
      }
    }
    const notJson = await system.client.request('/admin/keys', {
      method: 'POST',
      headers: { ...ADMIN_HEADERS, 'content-type': 'application/json' },
      body: '{"caller_id":',
    });
    expect(notJson.status).toBe(400);
    const refused = await recordsOnce(
      { action: 'key.create', actor: 'admin', outcome: 'refused' },
      (record) => record.error_code === 'INVALID_INPUT',
    );
    expect(refused.map((record) => record.error_code)).toContain('INVALID_INPUT');
    // Express serves a path in any case and with a trailing slash: so spelled, the act is audited too.
    const spelled = '/SKILLS/audited-spelling/Pause/';
    const paused = await system.client.request<Envelope>(spelled, { method: 'POST', headers: operator });
    expect(paused.status).toBe(403);
    const records = await recordsOnce(
      { action: 'skill.pause', outcome: 'refused' },
      (record) => record.path === spelled,
    );
    expect(records.find((record) => record.path === spelled)).toMatchObject({
      target: { skill_id: 'audited-spelling' },
      status: 403,
    });
  });

  it('never records a credential set for a skill', async () => {
    const secret = 'provider-password-that-must-not-leak';
    await system.client.request('/skills/audited-skill/credentials', {
      method: 'PUT',
      headers: ADMIN_HEADERS,
      json: { type: 'bearer', token: secret },
    });
    await recordsOnce(
      { action: 'skill.credentials.set', actor: 'admin' },
      (record) => record.outcome !== 'unknown',
    );
    expect(JSON.stringify((await audit({ limit: '200' })).body)).not.toContain(secret);
  });

  it('filters by actor, action, outcome and time, and pages newest first with a cursor', async () => {
    for (const skill of ['page-a', 'page-b', 'page-c']) {
      await system.client.request(`/skills/${skill}/pause`, { method: 'POST', headers: operator });
    }
    await recordsOnce(
      { action: 'skill.pause', actor: 'operator-1' },
      (record) => record.target.skill_id === 'page-c' && record.outcome !== 'unknown',
    );
    const pages: AuditRecord[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = { action: 'skill.pause', actor: 'operator-1', limit: '1' };
      if (cursor) query.cursor = cursor;
      const page = await audit(query);
      expect(page.status).toBe(200);
      expect(page.body.records.length).toBeLessThanOrEqual(1);
      pages.push(...page.body.records);
      cursor = page.body.next_cursor;
    } while (cursor);
    const paused = pages.map((record) => record.target.skill_id).filter((id) => id?.startsWith('page-'));
    expect(paused).toEqual(['page-c', 'page-b', 'page-a']);
    for (const record of pages)
      expect(record).toMatchObject({ action: 'skill.pause', actor: { caller_id: 'operator-1' } });
    const ids = pages.map((record) => record.audit_id);
    expect([...ids].sort().reverse()).toEqual(ids);

    const newest = pages[0] as AuditRecord;
    expect(
      (await audit({ since: newest.at, action: 'skill.pause', actor: 'operator-1' })).body.records.map(
        (r) => r.audit_id,
      ),
    ).toContain(newest.audit_id);
    const ahead = new Date(Date.parse(newest.at) + 1).toISOString();
    expect((await audit({ since: ahead, action: 'skill.pause', actor: 'operator-1' })).body.records).toEqual(
      [],
    );
    const oldest = pages.at(-1) as AuditRecord;
    const before = new Date(Date.parse(oldest.at) - 1).toISOString();
    expect((await audit({ until: before, action: 'skill.pause', actor: 'operator-1' })).body.records).toEqual(
      [],
    );
    expect((await audit({ outcome: 'succeeded', actor: 'operator-1' })).body.records).toEqual([]);
  });

  it('is for admins only, and refuses a bad query naming the field', async () => {
    expect((await audit({}, {})).status).toBe(401);
    const denied = await audit({}, operator);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('ACCESS_DENIED');
    const bad = await audit({ outcome: 'maybe' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain('outcome');
    const badCursor = await audit({ cursor: 'not-a-cursor' });
    expect(badCursor.status).toBe(400);
    expect(JSON.stringify(badCursor.body.error)).toContain('cursor');
  });

  it('is read with `skillrun audit`: a table, filters, JSON; refused without the admin scope', async () => {
    const url = system.gateway.url;
    for (let i = 0; i < 2; i++) {
      await system.client.request('/skills/cli-audited/resume', { method: 'POST', headers: operator });
    }
    await recordsOnce(
      { action: 'skill.resume', actor: 'operator-1' },
      (record) => record.outcome === 'refused',
    );
    const admin = { SKILLRUN_URL: url, SKILLRUN_API_KEY: TEST_ADMIN_KEY };
    const table = await runSkillrun(
      ['audit', '--action', 'skill.resume', '--actor', 'operator-1', '--since', '1h'],
      {
        env: admin,
      },
    );
    expect(table.code, table.stderr).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^AT\s+ACTOR\s+ACTION\s+TARGET\s+OUTCOME\s+ADDRESS$/);
    expect(
      rows.some((row) => /\soperator-1\s+skill\.resume\s+cli-audited\s+refused 4\d\d [A-Z_]+\s/.test(row)),
    ).toBe(true);
    const json = await runSkillrun(['audit', '--outcome', 'refused', '--limit', '2', '--json'], {
      env: admin,
    });
    expect(json.code, json.stderr).toBe(0);
    const page = JSON.parse(json.stdout) as AuditPage;
    expect(page.records).toHaveLength(2);
    expect(page.records.every((record) => record.outcome === 'refused')).toBe(true);
    expect(page.next_cursor).toEqual(expect.any(String));
    const bad = await runSkillrun(['audit', '--outcome', 'maybe'], { env: admin });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/outcome/);
    const denied = await runSkillrun(['audit'], {
      env: { SKILLRUN_URL: url, SKILLRUN_API_KEY: operator['x-api-key'] ?? '' },
    });
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/admin/);
  });

  it('leaves OPTIONS to the routes that serve the path', async () => {
    const answer = await fetch(`${system.gateway.url}/admin/keys`, { method: 'OPTIONS' });
    expect(answer.headers.get('allow')?.split(/, */).sort()).toEqual(['GET', 'HEAD', 'POST']);
  });

  it('refuses an act whose record cannot be written, and does not do it', async () => {
    const index = new RedisKeys('{skillrun}').audit.index();
    const kept = await redis.dumpBuffer(index);
    // The index made unwritable (a value of another type): Redis refuses the record's write.
    await redis.del(index);
    await redis.set(index, 'not a sorted set');
    try {
      const refused = await system.client.request<Envelope>('/admin/keys', {
        json: { caller_id: 'never-made', scopes: ['skill:read'] },
        headers: ADMIN_HEADERS,
      });
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(refused.body.error.message).toMatch(/audit/);
      const keys = await system.client.request<{ keys: unknown[] }>('/admin/keys?caller_id=never-made', {
        headers: ADMIN_HEADERS,
      });
      expect(keys.body.keys).toEqual([]);
    } finally {
      await redis.del(index);
      if (kept) await redis.restore(index, 0, kept);
    }
    expect((await audit()).status).toBe(200);
  });
});

describe('AuditLog: records kept for the retention, no longer', () => {
  let system: TestSystem;
  let redis: Redis;

  beforeAll(async () => {
    system = await TestSystem.start();
    redis = new Redis(system.redis.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await system?.stop();
  });

  it('drops from the log what is older than the retention, at the next write', async () => {
    const day = 86_400_000;
    let now = Date.parse('2030-01-01T00:00:00Z');
    const keys = new RedisKeys('{retention-test}');
    const log = new AuditLog({ redis, keys, retentionMs: 2 * day, now: () => now });
    const entry = (skill: string) => ({
      actor: { caller_id: 'ops', credential: 'api_key' as const },
      action: 'skill.pause' as const,
      method: 'POST',
      path: `/skills/${skill}/pause`,
      target: { skill_id: skill },
      address: '127.0.0.1',
    });
    const first = await log.begin(entry('old'));
    now += day;
    await log.begin(entry('kept'));
    now += 1.5 * day;
    await log.begin(entry('new'));
    const { records } = await log.list({}, 10);
    expect(records.map((record) => record.target.skill_id)).toEqual(['new', 'kept']);
    expect(await redis.pttl(keys.audit.record(first))).toBeLessThanOrEqual(2 * day);
  });
});
