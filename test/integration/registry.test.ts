import type { SkillDescriptor, SkillSearchPage, SkillVersionList } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { descriptorLike, REQUIRED_DESCRIPTOR_FIELDS, translateDescriptor } from '../support/descriptors';
import { ADMIN_HEADERS, type StartedGateway, startGateway } from '../support/service-process';
import { TestSystem } from '../support/system';

interface Envelope {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

describe('the registry: POST /skills, versions, deprecation, search', () => {
  let system: TestSystem;
  let second: StartedGateway;
  let other: Client;

  beforeAll(async () => {
    system = await TestSystem.start();
    // A second gateway on the same Redis, with the default skill cache.
    second = await startGateway({ REDIS_URL: system.redis.url });
    other = new Client(second.url);
  });
  afterAll(async () => {
    await second?.process.stop();
    await system?.stop();
  });

  const register = (descriptor: unknown) =>
    system.client.request<SkillDescriptor & Envelope>('/skills', {
      json: descriptor,
      headers: ADMIN_HEADERS,
    });

  it("registers the spec's translation descriptor, visible through every gateway at once", async () => {
    const created = await register(translateDescriptor);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(
      `${system.gateway.url}/skills/com.example.translate-v1?version=2.1.0`,
    );
    const fetched = await other.request<SkillDescriptor>('/skills/com.example.translate-v1');
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(translateDescriptor);
  });

  it('is idempotent for the same content and refuses other content under a published version (409)', async () => {
    expect((await register(translateDescriptor)).status).toBe(200);
    const changed = await register({ ...translateDescriptor, description: 'Something else' });
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('SKILL_VERSION_CONFLICT');
    const still = await system.client.request<SkillDescriptor>('/skills/com.example.translate-v1');
    expect(still.body.description).toBe(translateDescriptor.description);
  });

  it('keeps versions side by side and resolves semver ranges', async () => {
    for (const version of ['2.2.0', '1.4.0', '3.0.0-beta.1']) {
      expect((await register({ ...translateDescriptor, version })).status).toBe(201);
    }
    const versions = await other.request<SkillVersionList>('/skills/com.example.translate-v1/versions');
    expect(versions.status).toBe(200);
    expect(versions.body.latest).toBe('2.2.0');
    expect(versions.body.versions.map((each) => each.version)).toEqual([
      '3.0.0-beta.1',
      '2.2.0',
      '2.1.0',
      '1.4.0',
    ]);
    const at = async (range: string) =>
      system.client.request<SkillDescriptor & Envelope>(
        `/skills/com.example.translate-v1?version=${encodeURIComponent(range)}`,
      );
    expect((await at('~2.1')).body.version).toBe('2.1.0');
    expect((await at('^2')).body.version).toBe('2.2.0');
    expect((await at('>=1.0.0,<2.0.0')).body.version).toBe('1.4.0');
    expect((await at('2.1.0')).body.version).toBe('2.1.0');
    expect((await at('^3.0.0-beta.0')).body.version).toBe('3.0.0-beta.1');
    const none = await at('^4');
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('SKILL_NOT_FOUND');
    const bad = await at('not a range');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details?.[0]?.path).toBe('/version');
  });

  it('deprecates a version: still fetchable, marked, and no longer the latest', async () => {
    const url = '/skills/com.example.translate-v1/versions/2.2.0/deprecation';
    const deprecated = await system.client.request<{ deprecated?: { message: string } }>(url, {
      method: 'PUT',
      json: { message: 'Use 2.1.0' },
      headers: ADMIN_HEADERS,
    });
    expect(deprecated.status).toBe(200);
    expect(deprecated.body.deprecated?.message).toBe('Use 2.1.0');
    const latest = await other.request<SkillDescriptor>('/skills/com.example.translate-v1');
    expect(latest.body.version).toBe('2.1.0');
    const pinned = await other.request<SkillDescriptor>('/skills/com.example.translate-v1?version=2.2.0');
    expect(pinned.body['x-deprecated']?.message).toBe('Use 2.1.0');
    expect(pinned.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect((await system.client.request(url, { method: 'DELETE', headers: ADMIN_HEADERS })).status).toBe(200);
    expect((await other.request<SkillDescriptor>('/skills/com.example.translate-v1')).body.version).toBe(
      '2.2.0',
    );
    const missing = await system.client.request<Envelope>(
      '/skills/com.example.translate-v1/versions/9.9.9/deprecation',
      { method: 'PUT', json: {}, headers: ADMIN_HEADERS },
    );
    expect(missing.status).toBe(404);
  });

  it('accepts an invocation of a registered skill, and fails it clearly when its provider cannot be called', async () => {
    const inputs = { text: 'hola', target_language: 'en' };
    const anonymous = await system.client.invoke('com.example.translate-v1', inputs);
    expect(anonymous.status).toBe(401);
    const created = await system.client.request<{ key: string }>('/admin/keys', {
      json: { caller_id: 'tester', scopes: ['skill:invoke', 'skill:read'] },
      headers: ADMIN_HEADERS,
    });
    const headers = { 'x-api-key': created.body.key };
    // Any worker takes the executions of registered skills and calls their providers.
    await system.addWorker();
    const answer = await system.client.invoke('com.example.translate-v1', inputs, {}, headers);
    expect(answer.status).toBe(202);
    // No credentials for its provider are set here (see federation.test.ts for a whole call).
    await expect
      .poll(async () => {
        const status = await system.client.request<{
          status: string;
          error?: { code: string; message: string };
        }>(`/skills/com.example.translate-v1/status/${answer.body.execution_id}`, { headers });
        return [status.body.status, status.body.error?.code];
      })
      .toEqual(['failed', 'TOOL_NOT_AVAILABLE']);
  });

  it('refuses descriptors that are not valid, naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ ...translateDescriptor, id: 'com.example.bad-1', access: 'publik' }, '/access'],
      [{ ...translateDescriptor, id: 'com.example.bad-2', capability_type: 'service' }, '/capability_type'],
      [{ ...translateDescriptor, id: 'com.example.bad-3', version: 'two' }, '/version'],
      [{ ...translateDescriptor, id: 'com.example.bad-4', documentaion_url: 'x' }, '/documentaion_url'],
      [
        {
          ...translateDescriptor,
          id: 'com.example.bad-5',
          'x-deprecated': { message: 'x', deprecated_at: '2025-01-01T00:00:00Z' },
        },
        '/x-deprecated',
      ],
      [
        descriptorLike({ id: 'com.example.bad-6', inputs: [{ name: 'a', type: 'strng', required: true }] }),
        '/inputs',
      ],
      [
        descriptorLike({
          id: 'com.example.bad-7',
          'x-migrations': [{ from_major: 2, steps: [{ op: 'wrap', path: '/a' }] }],
        }),
        '/x-migrations/0/from_major',
      ],
      [
        descriptorLike({
          id: 'com.example.bad-8',
          'x-migrations': [{ from_major: 1, steps: [{ op: 'rename', path: '/a' }] }],
        }),
        '/x-migrations/0/steps/0/to',
      ],
      [
        descriptorLike({
          id: 'com.example.bad-9',
          'x-migrations': [{ from_major: 1, steps: [{ op: 'set', path: '/__proto__/x', value: 1 }] }],
        }),
        '/x-migrations/0/steps/0/path',
      ],
    ];
    for (const field of REQUIRED_DESCRIPTOR_FIELDS) {
      const { [field]: _removed, ...rest } = translateDescriptor as unknown as Record<string, unknown>;
      cases.push([{ ...rest, ...(field === 'id' ? {} : { id: `com.example.no-${field}` }) }, `/${field}`]);
    }
    for (const [body, path] of cases) {
      const answer = await register(body);
      expect(answer.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(
        answer.body.error.details?.map((detail) => detail.path),
        path,
      ).toContain(path);
    }
  });

  it("validates inputs with the descriptor's x-inputs_schema: $defs its parameters' $refs point into", async () => {
    const address = {
      type: 'object',
      properties: { city: { type: 'string' }, zip: { type: 'integer' } },
      required: ['city'],
    };
    const descriptor = descriptorLike({
      id: 'com.example.defs',
      access: 'public',
      auth: { type: 'none' },
      inputs: [{ name: 'address', type: 'any', required: true, schema: { $ref: '#/$defs/address' } }],
      'x-inputs_schema': { $defs: { address }, additionalProperties: false },
    });
    expect((await register(descriptor)).status).toBe(201);
    const fetched = await system.client.request<SkillDescriptor>('/skills/com.example.defs');
    expect(fetched.body['x-inputs_schema']).toEqual({ $defs: { address }, additionalProperties: false });
    const invoke = (inputs: unknown) =>
      system.client.request<Envelope>('/skills/com.example.defs/invoke', {
        json: { skill_id: 'com.example.defs', caller: { id: 'tester', type: 'user' }, inputs },
      });
    const missing = await invoke({ address: { zip: 75001 } });
    expect([missing.status, missing.body.error.details?.map((detail) => detail.path)]).toEqual([
      400,
      ['/inputs/address/city'],
    ]);
    const extra = await invoke({ address: { city: 'Lyon' }, nickname: 'x' });
    expect(extra.status).toBe(400);
    // Coerced through the $ref, as any input.
    expect((await invoke({ address: { city: 'Lyon', zip: '69001' } })).status).toBe(202);
    const said = await register(
      descriptorLike({ id: 'com.example.defs-2', 'x-inputs_schema': { required: ['text'] } }),
    );
    expect([said.status, said.body.error.details?.map((detail) => detail.path)]).toEqual([
      400,
      ['/x-inputs_schema/required'],
    ]);
  });

  it('refuses hostile schemas at registration: catastrophic patterns, huge and deep schemas', async () => {
    const withOutput = (id: string, schema: unknown) =>
      descriptorLike({
        id,
        output: { content_type: 'application/json', schema: schema as Record<string, unknown> },
      });
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 40; level++) deep = { type: 'object', properties: { x: deep } };
    const huge = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 3000 }, (_, index) => [
          `field_${index}`,
          { type: 'string', description: 'padding' },
        ]),
      ),
    };
    const cases: [SkillDescriptor, RegExp][] = [
      [
        descriptorLike({
          id: 'com.example.redos',
          inputs: [{ name: 'a', type: 'string', required: true, schema: { pattern: '^(a+)+$' } }],
        }),
        /pattern/i,
      ],
      [withOutput('com.example.lookahead', { type: 'string', pattern: '^(?=a)a$' }), /pattern|syntax/i],
      [withOutput('com.example.deep', deep), /deep/i],
      [withOutput('com.example.huge', huge), /more than 5000 keys and items/],
      [
        withOutput('com.example.long', { type: 'string', description: 'x'.repeat(70_000) }),
        /KiB|bytes|large/i,
      ],
    ];
    for (const [descriptor, message] of cases) {
      const answer = await register(descriptor);
      expect(answer.status, descriptor.id).toBe(400);
      expect(answer.body.error.message).toMatch(message);
    }
    const listed = await system.client.request<SkillSearchPage>('/skills?limit=100');
    expect(listed.body.skills.map((skill) => skill.id)).not.toContain('com.example.redos');
  });

  it('never shows a private skill: not listed, not searchable, 404 on fetch, versions and invoke', async () => {
    const hidden = descriptorLike({ id: 'com.example.hidden', access: 'private', tags: ['secret-tag'] });
    expect((await register(hidden)).status).toBe(201);
    const listed = await other.request<SkillSearchPage>('/skills?limit=100');
    expect(listed.body.skills.map((skill) => skill.id)).not.toContain('com.example.hidden');
    expect((await other.request<SkillSearchPage>('/skills?tag=secret-tag')).body.skills).toEqual([]);
    for (const path of ['/skills/com.example.hidden', '/skills/com.example.hidden/versions']) {
      const answer = await other.request<Envelope>(path);
      expect(answer.status, path).toBe(404);
      expect(JSON.stringify(answer.body)).not.toContain('private');
    }
    expect((await other.invoke('com.example.hidden', {})).status).toBe(404);
  });

  it('searches by text, tag, capability_type and category, a page at a time in a stable order', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 25; index++) {
      const id = `org.search.s${String(index).padStart(2, '0')}`;
      ids.push(id);
      const answer = await register(
        descriptorLike({
          id,
          name: index % 2 === 0 ? `Even ${index}` : `Odd ${index}`,
          description: index % 5 === 0 ? 'Summarises long documents' : 'Does something else',
          capability_type: index % 3 === 0 ? 'knowledge' : 'api',
          tags: index % 4 === 0 ? ['four', 'Common'] : ['common'],
          'x-category': index < 10 ? 'text' : 'search',
        }),
      );
      expect(answer.status).toBe(201);
    }
    const search = async (query: string) => {
      const answer = await other.request<SkillSearchPage>(`/skills?${query}`);
      expect(answer.status, query).toBe(200);
      return answer.body.skills.map((skill) => skill.id).filter((id) => id.startsWith('org.search.'));
    };
    expect(await search('q=summarises&limit=100')).toEqual(ids.filter((_, index) => index % 5 === 0));
    expect(await search('q=even%20documents&limit=100')).toEqual(ids.filter((_, index) => index % 10 === 0));
    expect(await search('tag=four&limit=100')).toEqual(ids.filter((_, index) => index % 4 === 0));
    expect(await search('capability_type=knowledge&limit=100')).toEqual(
      ids.filter((_, index) => index % 3 === 0),
    );
    expect(await search('category=Text&limit=100')).toEqual(ids.slice(0, 10));

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `tag=common&limit=7${cursor ? `&cursor=${cursor}` : ''}`;
      const page: { body: SkillSearchPage } = await other.request<SkillSearchPage>(`/skills?${query}`);
      expect(page.body.skills.length).toBeLessThanOrEqual(7);
      seen.push(...page.body.skills.map((skill) => skill.id));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(ids);
    expect(pages).toBe(4);

    for (const query of [
      'limit=0',
      'limit=1000',
      'cursor=%%%',
      'capability_type=robot',
      'colour=red',
      'tag=a&tag=b',
    ]) {
      const answer = await other.request<Envelope>(`/skills?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.code).toBe('INVALID_INPUT');
    }
  });
});
