import type { SkillVersionList } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descriptorLike, translateDescriptor } from '../support/descriptors';
import { ADMIN_HEADERS } from '../support/service-process';
import { TestSystem } from '../support/system';

interface Envelope {
  error: { code: string; message: string };
}

describe('publishing: a namespace is its caller, and an id its first publisher', () => {
  let system: TestSystem;
  const headers: Record<string, Record<string, string>> = {};

  beforeAll(async () => {
    system = await TestSystem.start({ PROVIDER_SECRETS_KEY: 'namespace-test-secret-0123456789abcdef' });
    for (const caller of ['com', 'com.acme']) {
      const created = await system.client.request<{ key: string }>('/admin/keys', {
        json: { caller_id: caller, scopes: ['skill:invoke', 'skill:read'] },
        headers: ADMIN_HEADERS,
      });
      expect(created.status).toBe(201);
      headers[caller] = { 'x-api-key': created.body.key };
    }
  });
  afterAll(async () => {
    await system?.stop();
  });

  const publish = (as: Record<string, string> | undefined, id: string, version: string) =>
    system.client.request<Envelope>('/skills', {
      json: descriptorLike({
        id,
        version,
        endpoint: { ...translateDescriptor.endpoint, url: `https://${id}.example.com/invoke` },
      }),
      headers: as ?? {},
    });
  const deprecation = (as: Record<string, string> | undefined, id: string, version: string, method: string) =>
    system.client.request<Envelope>(`/skills/${id}/versions/${version}/deprecation`, {
      method,
      ...(method === 'PUT' ? { json: { message: 'Moved' } } : {}),
      headers: as ?? {},
    });
  const versions = async (id: string) =>
    (await system.client.request<SkillVersionList>(`/skills/${id}/versions`)).body;
  /** The status and error code of each answer, for one comparison. */
  const outcomes = (answers: { status: number; body: Envelope }[]) =>
    answers.map(({ status, body }) => [status, body.error?.code ?? null]);

  it("refuses a parent namespace's caller new versions, new ids and deprecations in a child namespace", async () => {
    expect((await publish(headers['com.acme'], 'com.acme.translate', '1.0.0')).status).toBe(201);

    const attempts = await Promise.all([
      publish(headers.com, 'com.acme.translate', '9.0.0'),
      publish(headers.com, 'com.acme.other', '1.0.0'),
      deprecation(headers.com, 'com.acme.translate', '1.0.0', 'PUT'),
      deprecation(headers.com, 'com.acme.translate', '1.0.0', 'DELETE'),
      system.client.request<Envelope>('/skills/com.acme.translate/credentials', {
        method: 'PUT',
        json: { api_key: 'taken-over' },
        headers: headers.com ?? {},
      }),
      // A namespace ends at a dot: com.acme's is not com.acmex's.
      publish(headers['com.acme'], 'com.acmex.translate', '1.0.0'),
    ]);
    expect(outcomes(attempts)).toEqual(Array(6).fill([403, 'ACCESS_DENIED']));

    const after = await versions('com.acme.translate');
    expect([after.latest, after.versions.map((each) => [each.version, each.deprecated ?? null])]).toEqual([
      '1.0.0',
      [['1.0.0', null]],
    ]);
    expect((await system.client.request('/skills/com.acme.other')).status).toBe(404);
  });

  it('lets the owner publish and deprecate its own ids, and its parent namespace its own', async () => {
    expect((await publish(headers['com.acme'], 'com.acme.translate', '1.1.0')).status).toBe(201);
    expect((await deprecation(headers['com.acme'], 'com.acme.translate', '1.0.0', 'PUT')).status).toBe(200);
    expect((await publish(headers.com, 'com.translate', '1.0.0')).status).toBe(201);
    const after = await versions('com.acme.translate');
    expect([
      after.latest,
      after.versions.map((each) => [each.version, each.deprecated?.message ?? null]),
    ]).toEqual([
      '1.1.0',
      [
        ['1.1.0', null],
        ['1.0.0', 'Moved'],
      ],
    ]);
  });

  it("keeps an id an admin published the admin's, and a version an admin adds to an owned id its owner's", async () => {
    expect((await publish(ADMIN_HEADERS, 'com.acme.seeded', '1.0.0')).status).toBe(201);
    const attempts = await Promise.all([
      publish(headers['com.acme'], 'com.acme.seeded', '2.0.0'),
      deprecation(headers['com.acme'], 'com.acme.seeded', '1.0.0', 'PUT'),
      system.client.request<Envelope>('/skills/com.acme.seeded/credentials', {
        method: 'PUT',
        json: { api_key: 'not-the-admins' },
        headers: headers['com.acme'] ?? {},
      }),
    ]);
    expect(outcomes(attempts)).toEqual(Array(3).fill([403, 'ACCESS_DENIED']));
    expect((await publish(ADMIN_HEADERS, 'com.acme.seeded', '2.0.0')).status).toBe(201);

    expect((await publish(ADMIN_HEADERS, 'com.acme.translate', '1.2.0')).status).toBe(201);
    expect((await deprecation(headers['com.acme'], 'com.acme.translate', '1.2.0', 'PUT')).status).toBe(200);
    expect((await publish(headers['com.acme'], 'com.acme.translate', '1.3.0')).status).toBe(201);
  });
});
