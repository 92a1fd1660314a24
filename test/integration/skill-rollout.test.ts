import { fileURLToPath } from 'node:url';
import { SkillrunClient, SkillrunError } from '@skillrun/client';
import type { SkillRollout } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runSkillrun } from '../support/cli-process';
import type { Client } from '../support/client';
import { type JwksServer, startJwksServer } from '../support/jwks-server';
import { ADMIN_HEADERS, TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

const registrySkills = fileURLToPath(new URL('../fixtures/registry-skills', import.meta.url));

interface Envelope {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

/** The callers of the share test: enough that a 30% ramp cannot land far from 30% of them by chance. */
const CALLERS = Array.from({ length: 200 }, (_, index) => `rollout-caller-${index}`);

/**
 * The version an invocation by `caller` runs (none named unless `extra` names one); a 503 (Redis
 * slower than REDIS_TIMEOUT_MS on a loaded machine: nothing happened) is asked again.
 */
async function versionFor(client: Client, caller: string, extra: Record<string, unknown> = {}) {
  const answer = await client.requestAvailable('/skills/greet/invoke', {
    json: { caller: { id: caller, type: 'user' }, skill_id: 'greet', inputs: { name: caller }, ...extra },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return String(answer.body.skill_version);
}

/** What each caller runs, 20 invocations at a time (the machine is shared). */
async function versionsFor(client: Client, callers: string[]): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  for (let start = 0; start < callers.length; start += 20) {
    const some = callers.slice(start, start + 20);
    const ran = await Promise.all(some.map((caller) => versionFor(client, caller)));
    for (const [index, caller] of some.entries()) versions.set(caller, ran[index] as string);
  }
  return versions;
}

function ramp(client: Client, body: unknown, headers = ADMIN_HEADERS) {
  return client.request<SkillRollout & Envelope>('/skills/greet/rollout', { json: body, headers });
}

/** The gateway's count of invocations of greet by version and what chose it. */
async function chosenCount(url: string, version: string, chosenBy: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (each) =>
        each.startsWith('skillrun_invocations_by_version_total{') &&
        each.includes('skill="greet"') &&
        each.includes(`version="${version}"`) &&
        each.includes(`chosen_by="${chosenBy}"`),
    );
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('rollout by version: a ramp sticky per caller, pins, rollback', () => {
  let system: TestSystem;
  /** An OAuth issuer: a JWT's subject is a caller a pin names. */
  let idp: JwksServer;

  beforeAll(async () => {
    idp = await startJwksServer();
    system = await TestSystem.start({
      OAUTH_ISSUER: idp.issuer,
      OAUTH_AUDIENCE: idp.audience,
      OAUTH_JWKS_URL: idp.jwksUrl,
    });
    await system.addWorker({ SKILLS_DIR: registrySkills, WORKER_SKILLS: 'greet@1.0.0,greet@1.1.0' });
  });
  afterAll(async () => {
    await system?.stop();
    await idp?.close();
  });

  it('runs the latest for everyone without a rollout, and answers an empty one', async () => {
    const { client } = system;
    const shown = await client.request<SkillRollout>('/skills/greet/rollout', { headers: ADMIN_HEADERS });
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({ skill_id: 'greet', ramp: null, pins: [] });
    const versions = await versionsFor(client, CALLERS.slice(0, 20));
    expect(new Set(versions.values())).toEqual(new Set(['1.1.0']));
  });

  it('sends about the ramp’s share of callers to the ramped version, the same callers every time', async () => {
    const { client } = system;
    const before = await chosenCount(system.gateway.url, '1.1.0', 'ramp');
    const ramped = await ramp(client, { version: '1.1.0', percent: 30 });
    expect(ramped.status, JSON.stringify(ramped.body)).toBe(200);
    expect(ramped.body.ramp).toMatchObject({ version: '1.1.0', percent: 30, ramped_by: 'admin' });
    const first = await versionsFor(client, CALLERS);
    const onRamp = CALLERS.filter((caller) => first.get(caller) === '1.1.0');
    // 30% of 200 is 60; the bucket is a hash, so anything far outside means the split is wrong.
    expect(onRamp.length).toBeGreaterThan(35);
    expect(onRamp.length).toBeLessThan(85);
    expect(CALLERS.every((caller) => ['1.0.0', '1.1.0'].includes(first.get(caller) as string))).toBe(true);
    // Sticky: each caller runs what it ran before.
    const again = await versionsFor(client, CALLERS);
    expect(again).toEqual(first);
    // Growing the ramp keeps its callers and adds more.
    await ramp(client, { version: '1.1.0', percent: 60 });
    const grown = await versionsFor(client, CALLERS);
    const grownOnRamp = CALLERS.filter((caller) => grown.get(caller) === '1.1.0');
    expect(grownOnRamp).toEqual(expect.arrayContaining(onRamp));
    expect(grownOnRamp.length).toBeGreaterThan(onRamp.length + 20);
    // The split is in the metrics.
    expect((await chosenCount(system.gateway.url, '1.1.0', 'ramp')) - before).toBe(
      onRamp.length * 2 + grownOnRamp.length,
    );
    expect(await chosenCount(system.gateway.url, '1.0.0', 'default')).toBeGreaterThanOrEqual(
      CALLERS.length * 3 - onRamp.length * 2 - grownOnRamp.length,
    );
  });

  it('runs a pinned caller’s range whatever the ramp, and a version named over the pin', async () => {
    const { client } = system;
    await ramp(client, { version: '1.1.0', percent: 100 });
    expect(await versionFor(client, 'pinned-caller')).toBe('1.1.0');
    const pinned = await client.request<SkillRollout>('/skills/greet/pins/pinned-caller', {
      method: 'PUT',
      json: { version: '~1.0' },
      headers: ADMIN_HEADERS,
    });
    expect(pinned.status).toBe(200);
    expect(pinned.body.pins).toEqual([
      expect.objectContaining({ caller: 'pinned-caller', version: '>=1.0.0 <1.1.0-0', pinned_by: 'admin' }),
    ]);
    expect(await versionFor(client, 'pinned-caller')).toBe('1.0.0');
    expect(await versionFor(client, 'pinned-caller', { version: '1.1.0' })).toBe('1.1.0');
    expect(await versionFor(client, 'another-caller')).toBe('1.1.0');
    expect(await chosenCount(system.gateway.url, '1.0.0', 'pin')).toBe(1);
    expect(await chosenCount(system.gateway.url, '1.1.0', 'request')).toBe(1);

    // A key's caller is pinned by its caller id.
    const key = await client.createKey('pinned-key-caller');
    await client.request('/skills/greet/pins/pinned-key-caller', {
      method: 'PUT',
      json: { version: '1.0.0' },
      headers: ADMIN_HEADERS,
    });
    expect(await versionFor(client, 'pinned-key-caller', {})).toBe('1.0.0');
    const withKey = await client.invoke(
      'greet',
      { name: 'k' },
      { caller: { id: 'pinned-key-caller', type: 'user' } },
      { 'x-api-key': key },
    );
    expect(withKey.body.skill_version).toBe('1.0.0');

    // So is a JWT's subject.
    await client.request('/skills/greet/pins/jwt-subject', {
      method: 'PUT',
      json: { version: '1.0.0' },
      headers: ADMIN_HEADERS,
    });
    const token = await idp.sign({ sub: 'jwt-subject', scope: 'skill:invoke skill:read' });
    const withJwt = await client.invoke(
      'greet',
      { name: 'j' },
      { caller: { id: 'jwt-subject', type: 'user' } },
      { authorization: `Bearer ${token}` },
    );
    expect(withJwt.status, JSON.stringify(withJwt.body)).toBe(202);
    expect(withJwt.body.skill_version).toBe('1.0.0');
    await client.request('/skills/greet/pins/jwt-subject', { method: 'DELETE', headers: ADMIN_HEADERS });

    const unpinned = await client.request<SkillRollout>('/skills/greet/pins/pinned-caller', {
      method: 'DELETE',
      headers: ADMIN_HEADERS,
    });
    expect(unpinned.body.pins.map((pin) => pin.caller)).toEqual(['pinned-key-caller']);
    expect(await versionFor(client, 'pinned-caller')).toBe('1.1.0');
  });

  it('rolls back in one call: every unpinned caller runs the other version, pins stay', async () => {
    const { client } = system;
    const rolledBack = await client.request<SkillRollout>('/skills/greet/rollout', {
      method: 'DELETE',
      headers: ADMIN_HEADERS,
    });
    expect(rolledBack.status).toBe(200);
    expect(rolledBack.body.ramp).toMatchObject({ version: '1.1.0', percent: 0 });
    expect(rolledBack.body.pins).toHaveLength(1);
    const versions = await versionsFor(client, CALLERS.slice(0, 50));
    expect(new Set(versions.values())).toEqual(new Set(['1.0.0']));
    // Still there for whoever names it.
    expect(await versionFor(client, 'someone', { version: '1.1.0' })).toBe('1.1.0');
  });

  it('refuses bad input with 400 naming the field, changing nothing', async () => {
    const { client } = system;
    const before = (await client.request<SkillRollout>('/skills/greet/rollout', { headers: ADMIN_HEADERS }))
      .body;
    const cases: [unknown, string][] = [
      [{ version: '1.1.0', percent: 101 }, '/percent'],
      [{ version: '1.1.0', percent: -1 }, '/percent'],
      [{ version: '1.1.0', percent: 12.5 }, '/percent'],
      [{ version: '1.1.0' }, '/percent'],
      [{ version: '9.9.9', percent: 10 }, '/version'],
      [{ version: 'latest', percent: 10 }, '/version'],
    ];
    for (const [body, path] of cases) {
      const answer = await ramp(client, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe('INVALID_INPUT');
      expect(answer.body.error.details?.map((detail) => detail.path)).toContain(path);
    }
    for (const [version, path] of [
      ['^7', '/version'],
      ['not a range', '/version'],
    ] as const) {
      const answer = await client.request<Envelope>('/skills/greet/pins/someone', {
        method: 'PUT',
        json: { version },
        headers: ADMIN_HEADERS,
      });
      expect(answer.status, version).toBe(400);
      expect(answer.body.error.details?.map((detail) => detail.path)).toContain(path);
    }
    const unknownSkill = await client.request<Envelope>('/skills/no-such-skill/rollout', {
      json: { version: '1.0.0', percent: 10 },
      headers: ADMIN_HEADERS,
    });
    expect(unknownSkill.status).toBe(404);
    expect(unknownSkill.body.error.code).toBe('SKILL_NOT_FOUND');
    const after = await client.request<SkillRollout>('/skills/greet/rollout', { headers: ADMIN_HEADERS });
    expect(after.body).toEqual(before);
  });

  it('lets only admins see or change a rollout', async () => {
    const { client } = system;
    const key = await client.createKey('not-an-admin');
    const anonymous = await ramp(client, { version: '1.0.0', percent: 50 }, {} as typeof ADMIN_HEADERS);
    expect(anonymous.status).toBe(401);
    const refused = await ramp(client, { version: '1.0.0', percent: 50 }, { 'x-api-key': key });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('ACCESS_DENIED');
    const read = await client.request('/skills/greet/rollout', { headers: { 'x-api-key': key } });
    expect(read.status).toBe(403);
    const pin = await client.request('/skills/greet/pins/not-an-admin', {
      method: 'PUT',
      json: { version: '1.1.0' },
      headers: { 'x-api-key': key },
    });
    expect(pin.status).toBe(403);
  });

  it('is shown and changed from the CLI and the TypeScript client, as over HTTP', async () => {
    const { client } = system;
    const env = { SKILLRUN_URL: system.gateway.url, SKILLRUN_API_KEY: TEST_ADMIN_KEY };
    const skillrun = (args: string[]) => runSkillrun(args, { env });
    const expectCode = (run: CliRun, code: number) =>
      expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(code);

    // An older version ramped to everyone: a staged downgrade.
    const set = await skillrun(['skills', 'rollout', 'set', 'greet', '1.0.0', '100']);
    expectCode(set, 0);
    expect(set.stdout).toMatch(/^greet: 1\.0\.0 at 100% of unpinned callers, set \S+ by admin$/m);
    expect(await versionFor(client, 'cli-caller')).toBe('1.0.0');

    const tooMuch = await skillrun(['skills', 'rollout', 'set', 'greet', '1.0.0', '150']);
    expect(tooMuch.code).not.toBe(0);
    expect(tooMuch.stderr).toContain('/percent');

    const pinned = await skillrun(['skills', 'rollout', 'pin', 'greet', 'cli-caller', '^1.1']);
    expectCode(pinned, 0);
    expect(pinned.stdout).toMatch(/^ {2}pin cli-caller → >=1\.1\.0 <2\.0\.0-0 \(by admin\)$/m);
    expect(await versionFor(client, 'cli-caller')).toBe('1.1.0');

    const shown = await skillrun(['skills', 'rollout', 'show', 'greet', '--json']);
    expectCode(shown, 0);
    expect((JSON.parse(shown.stdout) as SkillRollout).pins.map((pin) => pin.caller)).toEqual([
      'cli-caller',
      'pinned-key-caller',
    ]);
    // `skillrun skills WORDS` searches still.
    const searched = await skillrun(['skills', 'greet']);
    expectCode(searched, 0);
    expect(searched.stdout).toMatch(/^greet\s+1\.1\.0/m);

    const typed = new SkillrunClient({ baseUrl: system.gateway.url, apiKey: TEST_ADMIN_KEY });
    const unpinned = await typed.unpinCaller('greet', 'cli-caller');
    expect(unpinned.pins.map((pin) => pin.caller)).toEqual(['pinned-key-caller']);
    const rampedBack = await typed.rampVersion('greet', { version: '1.1.0', percent: 100 });
    expect(rampedBack.ramp).toMatchObject({ version: '1.1.0', percent: 100 });
    expect(await versionFor(client, 'cli-caller')).toBe('1.1.0');
    const refused = await typed
      .rampVersion('greet', { version: '3.0.0', percent: 5 })
      .catch((error) => error);
    expect(refused).toBeInstanceOf(SkillrunError);
    expect(refused).toMatchObject({ code: 'INVALID_INPUT' });
    const rolledBack = await skillrun(['skills', 'rollout', 'rollback', 'greet']);
    expectCode(rolledBack, 0);
    expect(rolledBack.stdout).toContain('greet: 1.1.0 at 0% of unpinned callers (rolled back)');
    expect((await typed.getRollout('greet')).ramp?.percent).toBe(0);
    expect(await versionFor(client, 'cli-caller')).toBe('1.0.0');
  });
});
