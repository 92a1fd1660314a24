import { fileURLToPath } from 'node:url';
import { SkillrunClient, SkillrunError } from '@skillrun/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/client';
import { type JwksServer, startJwksServer } from '../support/jwks-server';
import { ADMIN_HEADERS } from '../support/service-process';
import { TestSystem } from '../support/system';

const SKILLS_DIR = fileURLToPath(new URL('../fixtures/auth-skills', import.meta.url));
const ROLE_CLAIM = 'https://skillrun.example/roles';
type Envelope = { error: { code: string; message: string; details?: unknown } };

/** The attack table (auth.test.ts) holds what roles may not do; this file, what they may. */
describe('roles: viewer, operator and admin on keys and tokens', () => {
  let system: TestSystem;
  let jwks: JwksServer;
  let client: Client;
  const keys: Record<string, string> = {};

  async function createKey(name: string, body: Record<string, unknown>) {
    const answer = await client.request<{ key: string }>('/admin/keys', {
      json: body,
      headers: ADMIN_HEADERS,
    });
    expect(answer.status).toBe(201);
    keys[name] = answer.body.key;
  }
  const as = (name: string) => ({ 'x-api-key': keys[name] ?? '' });

  beforeAll(async () => {
    jwks = await startJwksServer();
    system = await TestSystem.start({
      SKILLS_DIR,
      OAUTH_ISSUER: jwks.issuer,
      OAUTH_AUDIENCE: jwks.audience,
      OAUTH_JWKS_URL: jwks.jwksUrl,
      OAUTH_ROLE_CLAIM: ROLE_CLAIM,
    });
    await system.addWorker();
    client = system.client;
    await createKey('alice', { caller_id: 'alice', scopes: ['skill:invoke', 'skill:read'] });
    await createKey('viewer', { caller_id: 'vera', scopes: ['skill:read'], role: 'viewer' });
    await createKey('operator', {
      caller_id: 'otto',
      scopes: ['skill:invoke', 'skill:read'],
      role: 'operator',
    });
  });
  afterAll(async () => {
    await system?.stop();
    await jwks?.close();
  });

  it('keeps the role on the key: listed, and told by GET /me', async () => {
    const listed = await client.request<{ keys: { caller_id: string; role?: string }[] }>('/admin/keys', {
      headers: ADMIN_HEADERS,
    });
    expect(listed.body.keys.find((key) => key.caller_id === 'otto')?.role).toBe('operator');
    expect(listed.body.keys.find((key) => key.caller_id === 'alice')?.role).toBeUndefined();
    expect((await client.request('/me', { headers: as('viewer') })).body).toMatchObject({ role: 'viewer' });
    expect((await client.request('/me', { headers: as('alice') })).body).not.toHaveProperty('role');
    expect((await client.request('/me', { headers: ADMIN_HEADERS })).body).toMatchObject({ role: 'admin' });
  });

  it('refuses a viewer or operator key with the admin scope, and an unknown role, creating nothing', async () => {
    for (const role of ['viewer', 'operator', 'root']) {
      const answer = await client.request<Envelope>('/admin/keys', {
        json: { caller_id: 'x', scopes: ['admin'], role },
        headers: ADMIN_HEADERS,
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('INVALID_INPUT');
      expect(JSON.stringify(answer.body.error.details)).toContain('/role');
    }
    const listed = await client.request<{ keys: unknown[] }>('/admin/keys?caller_id=x', {
      headers: ADMIN_HEADERS,
    });
    expect(listed.body.keys).toEqual([]);
  });

  it("lets an operator read, replay, cancel and pause what is another caller's, with its payloads", async () => {
    const started = await client.invoke(
      'open_echo',
      { text: 'for otto' },
      { caller: { id: 'alice', type: 'user' } },
      as('alice'),
    );
    const id = String(started.body.execution_id);
    const done = await client.waitForEnd('open_echo', id, 20_000, as('operator'));
    expect(done.final).toMatchObject({ status: 'completed', output: { text: 'for otto' } });
    const inputs = await client.request(`/skills/open_echo/inputs/${id}`, { headers: as('operator') });
    expect(inputs.body).toMatchObject({ inputs: { text: 'for otto' } });
    const replayed = await client.request(`/skills/open_echo/replay/${id}`, {
      json: {},
      headers: as('operator'),
    });
    expect(replayed.status).toBe(202);
    const bulk = await client.request('/executions/cancel', {
      json: { caller_id: 'alice' },
      headers: as('operator'),
    });
    expect(bulk.status).toBe(200);
    const paused = await client.request('/skills/open_echo/pause', {
      method: 'POST',
      headers: as('operator'),
    });
    expect(paused.body).toMatchObject({ skill_id: 'open_echo', paused: true, paused_by: 'otto' });
    const resumed = await client.request('/skills/open_echo/resume', {
      method: 'POST',
      headers: as('operator'),
    });
    expect(resumed.body).toMatchObject({ paused: false });
    // A caller without a role still sees no one else's execution.
    await createKey('bob', { caller_id: 'bob', scopes: ['skill:invoke', 'skill:read'] });
    expect((await client.request(`/skills/open_echo/status/${id}`, { headers: as('bob') })).status).toBe(404);
  });

  it('reads the role from the configured claim of a JWT, the strongest of a list', async () => {
    const token = await jwks.sign({
      sub: 'olga',
      scope: 'skill:invoke skill:read',
      [ROLE_CLAIM]: ['staff', 'viewer', 'operator'],
    });
    const me = await client.request('/me', { headers: { authorization: `Bearer ${token}` } });
    expect(me.body).toMatchObject({ caller_id: 'olga', role: 'operator', method: 'oauth2' });
    // The default claim name means nothing here.
    const other = await jwks.sign({ sub: 'olga', scope: 'skill:read', role: 'admin' });
    const refused = await client.request<Envelope>('/admin/keys', {
      headers: { authorization: `Bearer ${other}` },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toMatchObject({ missing_role: 'admin', role: null });
  });

  it('shows the TypeScript client a viewer without outputs, and the missing role of a refusal', async () => {
    const owner = new SkillrunClient({ baseUrl: system.gateway.url, apiKey: keys.alice ?? '' });
    const viewer = new SkillrunClient({ baseUrl: system.gateway.url, apiKey: keys.viewer ?? '' });
    expect(await viewer.me()).toMatchObject({ caller_id: 'vera', role: 'viewer' });
    const handle = await owner.invoke('open_echo', { text: 'not for vera' });
    const ended = await owner.wait(handle);
    expect(ended.output).toEqual({ text: 'not for vera' });
    const seen = await viewer.status(handle);
    expect(seen.status).toBe('completed');
    expect(seen).not.toHaveProperty('output');
    const refusal = await viewer.invoke('open_echo', { text: 'x' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SkillrunError);
    expect((refusal as SkillrunError).httpStatus).toBe(403);
    expect((refusal as SkillrunError).missingRole).toBe('operator');
  });
});
