import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { type AuthorizerServer, startAuthorizerServer } from '../support/custom-authorizer-server';
import { readStream } from '../support/event-stream';
import { type JwksServer, startJwksServer } from '../support/jwks-server';
import { mcpRequest } from '../support/mcp-json-rpc';
import { everythingStored } from '../support/redis-contents';
import { ADMIN_HEADERS, startGateway, TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

const SKILLS_DIR = fileURLToPath(new URL('../fixtures/auth-skills', import.meta.url));
const AUTH_REQUIRED_MESSAGE = 'Authentication is required to invoke this skill';
const FLOOD_LIMIT = 20;
const LIMITS = JSON.stringify({
  callers: { flooder: { rate: { requests: FLOOD_LIMIT, per_seconds: 300 } } },
});
type Envelope = { error: { code: string; message: string; details?: unknown } };

describe('authentication, access policies and ownership: the attack table', () => {
  let system: TestSystem;
  let jwks: JwksServer;
  let authorizer: AuthorizerServer;
  let client: Client;
  const keys: Record<string, { key: string; id: string }> = {};

  async function createKey(name: string, body: Record<string, unknown>) {
    const answer = await client.request<{ key: string; record: { id: string } }>('/admin/keys', {
      json: body,
      headers: ADMIN_HEADERS,
    });
    expect(answer.status).toBe(201);
    keys[name] = { key: answer.body.key, id: answer.body.record.id };
    return answer.body.key;
  }
  const as = (name: string) => ({ 'x-api-key': keys[name]?.key ?? '' });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const caller = (id: string) => ({ caller: { id, type: 'user' } });

  beforeAll(async () => {
    jwks = await startJwksServer();
    authorizer = await startAuthorizerServer();
    system = await TestSystem.start({
      SKILLS_DIR,
      OAUTH_ISSUER: jwks.issuer,
      OAUTH_AUDIENCE: jwks.audience,
      OAUTH_JWKS_URL: jwks.jwksUrl,
      LIMITS,
      CUSTOM_AUTH_URL: authorizer.url,
    });
    await system.addWorker();
    client = system.client;
    await createKey('alice', { caller_id: 'alice', scopes: ['skill:invoke', 'skill:read'] });
    await createKey('bob', { caller_id: 'bob', scopes: ['skill:invoke', 'skill:read'] });
    await createKey('reader', { caller_id: 'reader', scopes: ['skill:read'] });
    await createKey('narrow', { caller_id: 'narrow', scopes: ['skill:invoke'], skills: ['open_echo'] });
    await createKey('granted', { caller_id: 'granted', scopes: ['skill:invoke'], skills: ['private_echo'] });
    await createKey('revoked', { caller_id: 'revoked', scopes: ['skill:invoke'] });
    await createKey('publisher', { caller_id: 'com.acme', scopes: ['skill:invoke'] });
    await createKey('flooder', { caller_id: 'flooder', scopes: ['skill:invoke', 'skill:read'] });
    await createKey('viewer', { caller_id: 'vera', scopes: ['skill:invoke', 'skill:read'], role: 'viewer' });
    await createKey('operator', {
      caller_id: 'otto',
      scopes: ['skill:invoke', 'skill:read'],
      role: 'operator',
    });
    const revoked = await client.request(`/admin/keys/${keys.revoked?.id}`, {
      method: 'DELETE',
      headers: ADMIN_HEADERS,
    });
    expect(revoked.status).toBe(204);
  });
  afterAll(async () => {
    await system?.stop();
    await jwks?.close();
    await authorizer?.close();
  });

  it('lets anyone invoke a public skill whose auth is none', async () => {
    expect((await client.invoke('open_echo', { text: 'hi' })).status).toBe(202);
  });

  it("answers a missing, wrong or revoked key with exactly the spec's 401", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { 'x-echo-key': 'srk_0123456789abcdef_nope' },
      { 'x-echo-key': keys.revoked?.key ?? '' },
    ];
    for (const headers of attempts) {
      const answer = await client.invoke('keyed_echo', { text: 'hi' }, {}, headers);
      expect(answer.status).toBe(401);
      expect((answer.body as Envelope).error).toMatchObject({
        code: 'AUTH_REQUIRED',
        message: AUTH_REQUIRED_MESSAGE,
        details: { required_auth_type: 'api_key' },
      });
    }
  });

  it("takes a key in the skill's own header, in X-API-Key, or in caller.credentials, and stores none", async () => {
    const key = keys.alice?.key ?? '';
    const inHeader = await client.invoke('keyed_echo', { text: 'a' }, caller('alice'), { 'x-echo-key': key });
    expect(inHeader.status).toBe(202);
    expect((await client.invoke('keyed_echo', { text: 'b' }, caller('alice'), as('alice'))).status).toBe(202);
    const inBody = await client.invoke(
      'keyed_echo',
      { text: 'c' },
      {
        caller: { id: 'alice', type: 'user', credentials: { api_key: key } },
      },
    );
    expect(inBody.status).toBe(202);
    const executionId = String(inBody.body.execution_id);
    const { final } = await waitAs(client, 'keyed_echo', executionId, as('alice'));
    expect(final.status).toBe('completed');
    expect(JSON.stringify(final)).not.toContain(key);
    const redis = new Redis(system.redis.url);
    const stored = (await everythingStored(redis)).join('\n');
    await redis.quit();
    expect(stored).toContain(executionId);
    // The secret is everything after srk_<16 hex>_ (it may itself hold underscores).
    expect(stored).not.toContain(key.slice('srk_'.length + 16 + 1));
  });

  it("answers an oauth2 skill's 401 with its authorization_url, and takes a valid JWT", async () => {
    const anonymous = await client.invoke('oauth_echo', { text: 'hi' });
    expect(anonymous.status).toBe(401);
    expect((anonymous.body as Envelope).error.details).toEqual({
      required_auth_type: 'oauth2',
      authorization_url: 'https://auth.example.com/authorize',
    });
    const token = await jwks.sign({ sub: 'carol', scope: 'skill:invoke skill:read' });
    expect((await client.invoke('oauth_echo', { text: 'hi' }, caller('carol'), bearer(token))).status).toBe(
      202,
    );
  });

  it('refuses expired, unsigned, forged, wrong-audience and wrong-issuer tokens', async () => {
    const claims = { sub: 'carol', scope: 'skill:invoke' };
    const tokens = [
      await jwks.sign(claims, { expiresIn: -120 }),
      jwks.unsigned(claims),
      await jwks.sign(claims, { key: 'other' }),
      await jwks.hs256WithPublicKey(claims),
      await jwks.sign(claims, { audience: 'someone-else' }),
      await jwks.sign(claims, { issuer: 'https://evil.example.com' }),
      'not.a.jwt',
    ];
    for (const token of tokens) {
      const answer = await client.invoke('oauth_echo', { text: 'hi' }, caller('carol'), bearer(token));
      expect(answer.status, token.slice(0, 20)).toBe(401);
      expect(JSON.stringify(answer.body)).not.toContain(token);
    }
  });

  it("asks the custom authorizer about a custom skill's credentials, and stores none", async () => {
    const token = 'partner-token-7f3a9c';
    authorizer.grants.set(token, { status: 200, body: { caller_id: 'dave', scopes: ['skill:invoke'] } });
    authorizer.grants.set('read-only', { status: 200, body: { caller_id: 'erin', scopes: ['skill:read'] } });
    authorizer.grants.set('broken', { status: 500 });
    authorizer.grants.set('odd', { status: 200, body: { scopes: ['skill:invoke'] } });
    const partner = (value: string) => ({ 'x-partner-token': value });

    const accepted = await client.invoke('custom_echo', { text: 'hi' }, caller('dave'), partner(token));
    expect(accepted.status).toBe(202);
    expect(authorizer.requests.at(-1)).toEqual({
      credential: token,
      skill_id: 'custom_echo',
      skill_version: '1.0.0',
    });
    expect(
      (await client.invoke('custom_echo', { text: 'hi' }, caller('mallory'), partner(token))).status,
    ).toBe(403);
    const refused = await client.invoke('custom_echo', { text: 'hi' }, caller('x'), partner('stolen'));
    expect(refused.status).toBe(401);
    expect((refused.body as Envelope).error.details).toEqual({ required_auth_type: 'custom' });
    expect((await client.invoke('custom_echo', { text: 'hi' })).status).toBe(401);
    expect(
      (await client.invoke('custom_echo', { text: 'hi' }, caller('erin'), partner('read-only'))).status,
    ).toBe(403);
    for (const failing of ['broken', 'odd']) {
      const answer = await client.invoke('custom_echo', { text: 'hi' }, caller('x'), partner(failing));
      expect(answer.status).toBe(503);
      expect((answer.body as Envelope).error.code).toBe('SERVICE_UNAVAILABLE');
    }
    expect((await client.invoke('custom_echo', { text: 'hi' }, caller('alice'), as('alice'))).status).toBe(
      202,
    );

    const id = String(accepted.body.execution_id);
    const { final } = await waitAs(client, 'custom_echo', id, ADMIN_HEADERS);
    expect(final.status).toBe('completed');
    const redis = new Redis(system.redis.url);
    const stored = (await everythingStored(redis)).join('\n');
    await redis.quit();
    expect(stored).toContain(id);
    expect(stored).not.toContain(token);
    expect(JSON.stringify(system.gateway.process.logs)).not.toContain(token);
  });

  it('refuses scope escalation with 403: no invoke scope, skill not granted, admin API, foreign namespace', async () => {
    expect((await client.invoke('open_echo', { text: 'x' }, caller('reader'), as('reader'))).status).toBe(
      403,
    );
    expect((await client.invoke('keyed_echo', { text: 'x' }, caller('narrow'), as('narrow'))).status).toBe(
      403,
    );
    expect((await client.invoke('open_echo', { text: 'x' }, caller('narrow'), as('narrow'))).status).toBe(
      202,
    );
    const token = await jwks.sign({ sub: 'carol', scope: 'skill:read' });
    expect((await client.invoke('oauth_echo', { text: 'x' }, caller('carol'), bearer(token))).status).toBe(
      403,
    );
    const minted = await client.request('/admin/keys', {
      json: { caller_id: 'alice', scopes: ['admin'] },
      headers: as('alice'),
    });
    expect(minted.status).toBe(403);
    expect(
      (await client.request('/admin/keys', { json: { caller_id: 'x', scopes: ['admin'] } })).status,
    ).toBe(401);
    const descriptor = await client.request<Record<string, unknown>>('/skills/open_echo');
    const foreign = { ...descriptor.body, id: 'org.other.echo', version: '1.0.0' };
    expect((await client.request('/skills', { json: foreign, headers: as('publisher') })).status).toBe(403);
    const own = { ...descriptor.body, id: 'com.acme.echo', version: '1.0.0' };
    expect((await client.request('/skills', { json: own, headers: as('publisher') })).status).toBe(201);
    expect((await client.request('/skills', { json: own })).status).toBe(401);
  });

  it('shows a viewer (key or token) every execution without its inputs or output, on every read', async () => {
    const secret = `secret-${randomUUID()}`;
    const started = await client.invoke('open_echo', { text: secret }, caller('alice'), as('alice'));
    const id = String(started.body.execution_id);
    const { final } = await waitAs(client, 'open_echo', id, as('alice'));
    // What is hidden is there for the owner: the reads below would show it if they could.
    expect(JSON.stringify(final)).toContain(secret);
    const token = await jwks.sign({ sub: 'vic', scope: 'skill:read', role: 'viewer' });
    for (const headers of [as('viewer'), bearer(token)]) {
      // What a viewer is shown, not whether Redis answered in time on a loaded machine: a 503 is
      // asked again (requestAvailable), as the listing's was once in CI.
      const reads = await Promise.all([
        client.requestAvailable(`/skills/open_echo/status/${id}`, { headers }),
        client.requestAvailable(`/skills/open_echo/result/${id}`, { headers }),
        client.requestAvailable('/executions?caller_id=alice&limit=100', { headers }),
        client.requestAvailable(`/a2a`, {
          json: { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id } },
          headers,
        }),
      ]);
      const [status, result, listing, task] = reads;
      expect(status?.body).toMatchObject({ execution_id: id, status: 'completed' });
      expect(result?.status).toBe(200);
      expect(JSON.stringify(listing?.body)).toContain(id);
      expect(task?.body).toMatchObject({ result: { id, status: { state: 'completed' } } });
      const mcpResult = await mcpRequest(client.baseUrl, 'tasks/result', { taskId: id }, { headers });
      const events = await readStream(`${client.baseUrl}/skills/open_echo/events/${id}`, { headers });
      expect(events.events.at(-1)?.execution).toMatchObject({ execution_id: id, status: 'completed' });
      // The caller's stream shows what changes once it is open: another execution of alice's, to its end.
      const followed = await followUntilEnded(
        `${client.baseUrl}/executions/events?caller_id=alice`,
        headers,
        () => client.invoke('open_echo', { text: secret }, caller('alice'), as('alice')),
      );
      expect(followed).toContain('"status":"completed"');
      const inputs = await client.request<Envelope>(`/skills/open_echo/inputs/${id}`, { headers });
      expect(inputs.status).toBe(403);
      expect(inputs.body.error.details).toMatchObject({ missing_role: 'operator', role: 'viewer' });
      const everything = JSON.stringify([reads.map((read) => read.body), mcpResult.body, events, followed]);
      expect(everything).not.toContain(secret);
    }
  });

  it('refuses a viewer every act and an operator the keys and credentials, with 403 naming the missing role', async () => {
    const started = await client.invoke('open_echo', { text: 'x' }, caller('alice'), as('alice'));
    const id = String(started.body.execution_id);
    const refusals: [Promise<{ status: number; body: unknown }>, string][] = [
      [
        client.request('/admin/keys', {
          json: { caller_id: 'otto', scopes: ['admin'] },
          headers: as('operator'),
        }),
        'admin',
      ],
      [
        client.request('/admin/keys', {
          json: { caller_id: 'x', scopes: ['skill:read'] },
          headers: as('operator'),
        }),
        'admin',
      ],
      [client.request('/admin/keys', { headers: as('operator') }), 'admin'],
      [
        client.request('/skills/open_echo/credentials', {
          method: 'PUT',
          json: { api_key: 'k' },
          headers: as('operator'),
        }),
        'admin',
      ],
      [
        client.request('/admin/keys', {
          json: { caller_id: 'x', scopes: ['skill:read'] },
          headers: as('viewer'),
        }),
        'admin',
      ],
      [client.invoke('open_echo', { text: 'x' }, caller('vera'), as('viewer')), 'operator'],
      [
        client.request(`/skills/open_echo/cancel/${id}`, { method: 'POST', headers: as('viewer') }),
        'operator',
      ],
      [
        client.request('/executions/cancel', { json: { caller_id: 'alice' }, headers: as('viewer') }),
        'operator',
      ],
      [client.request('/skills/open_echo/pause', { method: 'POST', headers: as('viewer') }), 'operator'],
      [
        client.request('/webhooks', {
          json: { url: 'https://hooks.example.com/x' },
          headers: as('viewer'),
        }),
        'operator',
      ],
      [client.request(`/skills/open_echo/replay/${id}`, { json: {}, headers: as('viewer') }), 'operator'],
    ];
    for (const [answer, missing] of refusals) {
      const { status, body } = await answer;
      expect(status).toBe(403);
      expect((body as Envelope).error).toMatchObject({
        code: 'ACCESS_DENIED',
        message: expect.stringContaining(`the ${missing} role`),
        details: { missing_role: missing },
      });
    }
    const keys = await client.request<{ keys: { caller_id: string }[] }>('/admin/keys', {
      headers: ADMIN_HEADERS,
    });
    expect(keys.body.keys.map((key) => key.caller_id)).not.toContain('x');
  });

  it('refuses a caller.id in the body that disagrees with the credentials', async () => {
    const answer = await client.invoke('open_echo', { text: 'x' }, caller('bob'), as('alice'));
    expect(answer.status).toBe(403);
    expect((answer.body as Envelope).error.code).toBe('ACCESS_DENIED');
  });

  it('tells a key or a token which caller it is (GET /me), and refuses anyone else with 401', async () => {
    const me = await client.request('/me', { headers: as('narrow') });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      caller_id: 'narrow',
      scopes: ['skill:invoke'],
      skills: ['open_echo'],
      method: 'api_key',
    });
    const token = await jwks.sign({ sub: 'carol', scope: 'skill:invoke' });
    expect((await client.request('/me', { headers: bearer(token) })).body).toMatchObject({
      caller_id: 'carol',
      method: 'oauth2',
    });
    for (const headers of [{}, as('revoked'), { 'x-api-key': 'srk_nope' }]) {
      const refused = await client.request('/me', { headers });
      expect(refused.status).toBe(401);
      expect((refused.body as Envelope).error.code).toBe('AUTH_REQUIRED');
    }
  });

  it("answers 404, never 403, for another caller's execution and for guessed ids", async () => {
    const started = await client.invoke('open_echo', { text: 'mine' }, caller('alice'), as('alice'));
    const id = String(started.body.execution_id);
    await waitAs(client, 'open_echo', id, as('alice'));
    const path = (step: string, executionId: string) => `/skills/open_echo/${step}/${executionId}`;
    for (const step of ['status', 'result']) {
      expect((await client.request(path(step, id), { headers: as('alice') })).status).toBe(200);
      const others = [as('bob'), {}, as('granted')];
      for (const headers of others) {
        const answer = await client.request<Envelope>(path(step, id), { headers });
        expect(answer.status).toBe(404);
        expect(answer.body.error.code).toBe('EXECUTION_NOT_FOUND');
      }
      const guessed = await client.request<Envelope>(path(step, randomUUID()), { headers: as('bob') });
      expect(guessed.status).toBe(404);
      expect(guessed.body.error.code).toBe('EXECUTION_NOT_FOUND');
    }
    expect((await client.request(path('status', id), { headers: ADMIN_HEADERS })).status).toBe(200);
  });

  it('keeps a private skill invisible on every endpoint to all but the callers granted it', async () => {
    const PRIVATE_SKILL_MD = 'skill://private-echo/SKILL.md';
    for (const headers of [{}, as('alice')]) {
      const listed = await client.request<{ skills: { id: string }[] }>('/skills?limit=100', { headers });
      expect(listed.body.skills.map((skill) => skill.id)).not.toContain('private_echo');
      expect((await client.request('/skills/private_echo', { headers })).status).toBe(404);
      expect((await client.request('/skills/private_echo/versions', { headers })).status).toBe(404);
      expect((await client.request('/skills/private_echo/SKILL.md', { headers })).status).toBe(404);
      const skill = await mcpRequest(client.baseUrl, 'skills/get', { uri: PRIVATE_SKILL_MD }, { headers });
      expect(skill.body).toMatchObject({ error: { code: -32602 } });
      expect((await client.request('/skills?q=private_echo', { headers })).body).toMatchObject({
        skills: [],
      });
      const invoked = await client.invoke('private_echo', { text: 'x' }, caller('alice'), headers);
      expect(invoked.status).toBe(404);
    }
    const listed = await client.request<{ skills: { id: string }[] }>('/skills?limit=100', {
      headers: as('granted'),
    });
    expect(listed.body.skills.map((skill) => skill.id)).toContain('private_echo');
    const skillMd = await fetch(`${client.baseUrl}/skills/private_echo/SKILL.md`, { headers: as('granted') });
    expect(skillMd.status).toBe(200);
    expect(await skillMd.text()).toContain('name: "private-echo"');
    const skill = await mcpRequest(
      client.baseUrl,
      'skills/get',
      { uri: PRIVATE_SKILL_MD },
      { headers: as('granted') },
    );
    expect(skill.body).toMatchObject({ result: { skill: { uri: PRIVATE_SKILL_MD } } });
    const invoked = await client.invoke('private_echo', { text: 'x' }, caller('granted'), as('granted'));
    expect(invoked.status).toBe(202);
    const id = String(invoked.body.execution_id);
    expect((await client.request(`/skills/private_echo/status/${id}`, { headers: as('alice') })).status).toBe(
      404,
    );
  });

  it('needs credentials for a restricted skill, which anyone may discover', async () => {
    expect((await client.request('/skills/restricted_echo')).status).toBe(200);
    expect((await client.invoke('restricted_echo', { text: 'x' })).status).toBe(401);
    expect((await client.invoke('restricted_echo', { text: 'x' }, caller('bob'), as('bob'))).status).toBe(
      202,
    );
  });

  it('stops a flood past the rate limit sent to two gateways at once, and only that caller', async () => {
    const second = await startGateway({ ...system.env, SKILL_CACHE_MS: '0' });
    try {
      const gateways = [client, new Client(second.url)];
      // A 503 (the new gateway reaching Redis late on a loaded machine) is asked again, as spec
      // 001's consumers do: it means nothing happened, so it must not have spent the quota either.
      const answers = await Promise.all(
        Array.from({ length: FLOOD_LIMIT * 3 }, (_, index) =>
          gateways[index % 2]?.requestAvailable('/skills/open_echo/invoke', {
            json: { skill_id: 'open_echo', inputs: { text: `flood ${index}` }, ...caller('flooder') },
            headers: as('flooder'),
          }),
        ),
      );
      const statuses = answers.map((answer) => answer?.status);
      expect(statuses.filter((status) => status === 202)).toHaveLength(FLOOD_LIMIT);
      expect(statuses.filter((status) => status === 429)).toHaveLength(FLOOD_LIMIT * 2);
      for (const answer of answers) {
        expect(answer?.headers.get('ratelimit-policy')).toBe(`"invocations";q=${FLOOD_LIMIT};w=300`);
        expect(answer?.headers.get('ratelimit')).toMatch(/^"invocations";r=\d+;t=\d+$/);
        if (answer?.status !== 429) continue;
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((answer.body as Envelope).error).toMatchObject({
          code: 'RATE_LIMIT_EXCEEDED',
          details: { policy: 'invocations', quota: FLOOD_LIMIT, window_seconds: 300 },
        });
      }
      const redis = new Redis(system.redis.url);
      const records = await redis.keys('*:exec:*');
      const owners = await Promise.all(records.map((key) => redis.hget(key, 'owner_id')));
      await redis.quit();
      expect(owners.filter((owner) => owner === 'flooder')).toHaveLength(FLOOD_LIMIT);
      const other = await client.invoke('open_echo', { text: 'x' }, caller('alice'), as('alice'));
      expect(other.status).toBe(202);
      expect(other.headers.get('ratelimit')).toBeNull();
    } finally {
      await second.process.stop();
    }
  });

  it('audits every refused administrative act with who asked (a key, a token, a revoked key, nobody) and why', async () => {
    const token = await jwks.sign({ sub: 'mallory', scope: 'skill:invoke skill:read' });
    const attempts: Array<[string, Record<string, string>, Record<string, unknown>]> = [
      ['by-key', as('alice'), { caller_id: 'alice', credential: 'api_key', key_id: keys.alice?.id }],
      ['by-token', bearer(token), { caller_id: 'mallory', credential: 'oauth2' }],
      ['by-revoked-key', as('revoked'), { caller_id: null, credential: 'invalid' }],
      ['by-nobody', {}, { caller_id: null, credential: 'none' }],
    ];
    for (const [name, headers, actor] of attempts) {
      const refused = await client.request<{ error: { code: string } }>('/admin/keys', {
        json: { caller_id: 'escalated', scopes: ['admin'], name },
        headers,
      });
      expect(refused.status, name).toBeGreaterThanOrEqual(401);
      await expect
        .poll(async () => {
          const page = await client.request<{ records: Array<Record<string, unknown>> }>(
            '/audit?action=key.create&outcome=refused&limit=200',
            { headers: ADMIN_HEADERS },
          );
          return page.body.records.find((record) => (record.details as { name?: string }).name === name);
        })
        .toMatchObject({ actor, status: refused.status, error_code: refused.body.error.code });
    }
    const made = await client.request<{ keys: unknown[] }>('/admin/keys?caller_id=escalated', {
      headers: ADMIN_HEADERS,
    });
    expect(made.body.keys).toEqual([]);
  });

  it('keeps the admin API closed on a gateway started without ADMIN_API_KEY', async () => {
    const closed = await startGateway({ ...system.env, ADMIN_API_KEY: '' });
    try {
      const admin = new Client(closed.url);
      const body = { caller_id: 'mallory', scopes: ['admin'] };
      for (const headers of [{}, { 'x-api-key': TEST_ADMIN_KEY }, as('alice')]) {
        const answer = await admin.requestAvailable<Envelope>('/admin/keys', { json: body, headers });
        expect([401, 403]).toContain(answer.status);
        expect((await admin.requestAvailable('/admin/keys', { headers })).status).not.toBe(200);
      }
    } finally {
      await closed.process.stop();
    }
  });

  it('never writes a key or token to a log', async () => {
    const logs = JSON.stringify([system.gateway.process.logs, system.workers[0]?.logs]);
    for (const { key } of Object.values(keys)) expect(logs).not.toContain(key);
    expect(logs).not.toContain(ADMIN_HEADERS['x-api-key']);
  });
});

async function waitAs(client: Client, skillId: string, executionId: string, headers: Record<string, string>) {
  for (let tries = 0; tries < 500; tries++) {
    const answer = await client.request<{ status: string }>(`/skills/${skillId}/status/${executionId}`, {
      headers,
    });
    if (['completed', 'failed', 'timeout'].includes(answer.body.status)) {
      return { final: answer.body as unknown as Record<string, unknown> & { status: string } };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${executionId} did not finish`);
}

/**
 * Opens a caller's event stream, then (once it answers, so subscribed) starts an execution, and
 * reads the stream's text until that execution's end is in it.
 */
async function followUntilEnded(
  url: string,
  headers: Record<string, string>,
  start: () => Promise<{ body: Record<string, unknown> }>,
): Promise<string> {
  const controller = new AbortController();
  const answer = await fetch(url, { headers, signal: controller.signal });
  expect(answer.status).toBe(200);
  const id = String((await start()).body.execution_id);
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of answer.body ?? []) {
    text += decoder.decode(chunk as Uint8Array, { stream: true });
    const ended = text
      .split('\n\n')
      .some((event) => event.includes(id) && event.includes('"status":"completed"'));
    if (ended) break;
  }
  controller.abort();
  return text;
}
