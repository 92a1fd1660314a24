import { fileURLToPath } from 'node:url';
import type { SkillDescriptor, SkillSearchPage, SkillVersionList } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_HEADERS, ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

const registrySkills = fileURLToPath(new URL('../fixtures/registry-skills', import.meta.url));

interface Envelope {
  error: { code: string; message: string; details?: unknown };
}

describe('hosted skill versions: side by side, ranges, migration, descriptor.json', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start();
    // Only 2.0.0 of greet at first: callers pinned to 1.x rely on its migration.
    await system.addWorker({
      SKILLS_DIR: registrySkills,
      WORKER_SKILLS: 'greet@2.0.0,secret,strict_numbers',
      WORKER_ID: 'v2-only',
    });
  });
  afterAll(() => system?.stop());

  it('runs 2.0.0 for a caller pinned to ^1 by migrating its inputs, and says so', async () => {
    const { client } = system;
    const accepted = await client.invoke('greet', { name: 'Ada' }, { version: '^1.0.0' });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ skill_version: '2.0.0', requested_version: '>=1.0.0 <2.0.0-0' });
    const { final } = await client.waitForEnd('greet', String(accepted.body.execution_id));
    expect(final).toMatchObject({
      status: 'completed',
      skill_version: '2.0.0',
      output: { greeting: 'Hello, Ada.' },
    });
    expect(final.requested_version).toBe('>=1.0.0 <2.0.0-0');
  });

  it('answers 404 naming the available versions when nothing satisfies a range and no migration helps', async () => {
    const answer = await system.client.invoke('greet', { names: ['x'] }, { version: '^3' });
    expect(answer.status).toBe(404);
    expect((answer.body as unknown as Envelope).error).toMatchObject({
      code: 'SKILL_NOT_FOUND',
      details: { available_versions: ['2.0.0'] },
    });
  });

  it('runs the highest matching version once 1.x workers are up, and exactly the one asked for', async () => {
    await system.addWorker({
      SKILLS_DIR: registrySkills,
      WORKER_SKILLS: 'greet@1.0.0,greet@1.1.0',
      WORKER_ID: 'v1',
    });
    const { client } = system;
    const cases: [Record<string, unknown>, string | undefined, string, string][] = [
      [{ names: ['Ada', 'Bo'] }, undefined, '2.0.0', 'Hello, Ada and Bo.'],
      [{ name: 'Ada' }, '^1', '1.1.0', 'Hello, Ada.'],
      [{ name: 'Ada' }, '~1.0', '1.0.0', 'Hello, Ada'],
      [{ name: 'Ada', punctuation: '!' }, '1.1.0', '1.1.0', 'Hello, Ada!'],
    ];
    for (const [inputs, version, ran, greeting] of cases) {
      const { final } = await client.run('greet', inputs, version === undefined ? {} : { version });
      expect(final.status, version).toBe('completed');
      expect(final.skill_version, version).toBe(ran);
      expect(final.output).toEqual({ greeting, version: ran });
    }
    const byQuery = await client.request<Record<string, unknown>>('/skills/greet/invoke?version=1.0.0', {
      json: { caller: { id: 't', type: 'user' }, skill_id: 'greet', inputs: { name: 'Q' } },
    });
    expect(byQuery.status).toBe(202);
    expect(byQuery.body.skill_version).toBe('1.0.0');
    const disagree = await client.request<Envelope>('/skills/greet/invoke?version=1.0.0', {
      json: { caller: { id: 't', type: 'user' }, skill_id: 'greet', inputs: { name: 'Q' }, version: '2.0.0' },
    });
    expect(disagree.status).toBe(400);
    const versions = await client.request<SkillVersionList>('/skills/greet/versions');
    expect(versions.body.versions.map((each) => [each.version, each.source])).toEqual([
      ['2.0.0', 'hosted'],
      ['1.1.0', 'hosted'],
      ['1.0.0', 'hosted'],
    ]);
  });

  it('validates inputs against the version that runs', async () => {
    const answer = await system.client.invoke(
      'greet',
      { name: 'Ada', punctuation: '!' },
      { version: '1.0.0' },
    );
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('/inputs/punctuation');
  });

  it("publishes descriptor.json's fields and the gateway's defaults for the rest", async () => {
    const { client } = system;
    const greet = (await client.request<SkillDescriptor>('/skills/greet')).body;
    expect(greet).toMatchObject({
      version: '2.0.0',
      capability_type: 'api',
      access: 'public',
      auth: { type: 'none' },
      documentation_url: 'https://docs.example.com/greet',
      'x-category': 'test',
      'x-migrations': [{ from_major: 1 }],
    });
    expect(greet.endpoint.url).toBe(`${system.gateway.url}/skills/greet/invoke?version=2.0.0`);
    const strict = (await client.request<SkillDescriptor>('/skills/strict_numbers')).body;
    expect(strict).toMatchObject({ capability_type: 'plugin', 'x-coercion': false });
  });

  it('keeps a private hosted skill out of sight', async () => {
    const { client } = system;
    const listed = await client.request<SkillSearchPage>('/skills?limit=100');
    const ids = listed.body.skills.map((skill) => skill.id);
    expect(ids).toEqual(expect.arrayContaining(['greet', 'strict_numbers']));
    expect(ids).not.toContain('secret');
    expect((await client.request('/skills/secret')).status).toBe(404);
    expect((await client.invoke('secret', {})).status).toBe(404);
  });

  it('refuses a worker whose skill version differs from the one a live worker hosts', async () => {
    const conflicting = ServiceProcess.spawn('worker', {
      ...system.env,
      SKILLS_DIR: fileURLToPath(new URL('../fixtures/conflicting-skills', import.meta.url)),
    });
    expect(await conflicting.exitCode()).toBe(1);
    expect(conflicting.stderr).toMatch(/greet@1\.0\.0 is hosted by another live worker/);
  });

  it('refuses POST /skills for an id that workers here host', async () => {
    const answer = await system.client.request<Envelope>('/skills', {
      json: { ...(await system.client.request<SkillDescriptor>('/skills/greet')).body, version: '9.0.0' },
      headers: ADMIN_HEADERS,
    });
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('SKILL_VERSION_CONFLICT');
  });
});
