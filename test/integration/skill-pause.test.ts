import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SkillDescriptor, SkillPauseState } from '@skillrun/core';
import type { Fleet } from '@skillrun/gateway/fleet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descriptorLike, translateDescriptor } from '../support/descriptors';
import { ADMIN_HEADERS, fixtureSkills, type ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

const registrySkills = fileURLToPath(new URL('../fixtures/registry-skills', import.meta.url));

interface Envelope {
  error: { code: string; message: string };
}

describe('operator controls: POST /skills/{id}/pause and /resume', () => {
  let system: TestSystem;
  /** Hosts gated, echo and greet@2.0.0 with one slot: a paused queue must not keep it. */
  let worker: ServiceProcess;
  const gates: string[] = [];
  /** A gate that is open from the start: an execution that starts completes at once. */
  let open: string;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR: [fixtureSkills, registrySkills].join(delimiter) });
    worker = await system.addWorker({ WORKER_SKILLS: 'gated,echo,greet@2.0.0', WORKER_CONCURRENCY: '1' });
    open = newGate();
    await writeFile(open, '');
  });
  afterAll(async () => {
    await Promise.all(gates.map((gate) => rm(gate, { force: true })));
    await system?.stop();
  });

  function newGate(): string {
    const gate = join(tmpdir(), `skillrun-pause-gate-${process.pid}-${gates.length}`);
    gates.push(gate);
    return gate;
  }

  const act = (
    skillId: string,
    action: 'pause' | 'resume',
    headers: Record<string, string> = ADMIN_HEADERS,
  ) =>
    system.client.requestAvailable<SkillPauseState & Envelope>(`/skills/${skillId}/${action}`, {
      method: 'POST',
      headers,
    });

  async function invoked(skillId: string, inputs: unknown, extra: Record<string, unknown> = {}) {
    const answer = await system.client.invoke(skillId, inputs, extra);
    expect(answer.status).toBe(202);
    return String(answer.body.execution_id);
  }

  it('holds new executions as accepted while the running one finishes, then runs them on resume', async () => {
    const { client } = system;
    const gate = newGate();
    const running = await invoked('gated', { gate });
    await expect.poll(async () => (await client.status('gated', running)).status).toBe('running');

    const paused = await act('gated', 'pause');
    expect(paused.status).toBe(200);
    expect(paused.body).toEqual({
      skill_id: 'gated',
      paused: true,
      paused_at: expect.any(String),
      paused_by: 'admin',
    });
    // Pausing again changes nothing: the first pause stands.
    expect((await act('gated', 'pause')).body).toEqual(paused.body);

    const held = [await invoked('gated', { gate: open }), await invoked('gated', { gate: open })];
    await writeFile(gate, '');
    expect((await client.waitForEnd('gated', running)).final.status).toBe('completed');
    // The worker's only slot is free and it takes jobs: the paused queue keeps none of it.
    expect((await client.run('echo', { text: 'still served' })).final.status).toBe('completed');
    for (const id of held) {
      expect((await client.status('gated', id)).status).toBe('accepted');
      expect(worker.logs.some((line) => line.execution_id === id)).toBe(false);
    }

    const resumed = await act('gated', 'resume');
    expect(resumed.status).toBe(200);
    expect(resumed.body).toEqual({ skill_id: 'gated', paused: false });
    for (const id of held) expect((await client.waitForEnd('gated', id)).final.status).toBe('completed');
    expect((await act('gated', 'resume')).body).toEqual({ skill_id: 'gated', paused: false });
  });

  it('shows the pause to admins: the descriptor, the fleet and the metrics', async () => {
    const { client } = system;
    const paused = (await act('echo', 'pause')).body;
    try {
      const asAdmin = await client.request<SkillDescriptor>('/skills/echo', { headers: ADMIN_HEADERS });
      expect(asAdmin.body['x-paused']).toEqual({ paused_at: paused.paused_at, paused_by: 'admin' });
      const asAnyone = await client.request<SkillDescriptor>('/skills/echo');
      expect(asAnyone.body['x-paused']).toBeUndefined();

      const fleet = await client.request<Fleet>('/admin/fleet', { headers: ADMIN_HEADERS });
      const pausedOf = (skillId: string) =>
        fleet.body.queues.filter((queue) => queue.skill_id === skillId).map((queue) => queue.paused);
      expect([pausedOf('echo'), pausedOf('gated')]).toEqual([[true], [false]]);

      const metrics = await (await fetch(`${system.gateway.url}/metrics`)).text();
      expect(metrics).toMatch(/^skillrun_skill_paused\{skill="echo"\} 1$/m);
      expect(metrics).not.toMatch(/^skillrun_skill_paused\{skill="gated"\}/m);
    } finally {
      await act('echo', 'resume');
    }
  });

  it('refuses callers who neither are admins nor own the namespace, and skills it cannot hold', async () => {
    const { client } = system;
    const alice = { 'x-api-key': await client.createKey('alice') };
    const acme = { 'x-api-key': await client.createKey('com.acme') };
    const parent = { 'x-api-key': await client.createKey('com') };
    const registered = await client.request('/skills', {
      json: descriptorLike({
        id: 'com.acme.translate',
        endpoint: { ...translateDescriptor.endpoint, url: 'https://translate.example.com/invoke' },
      }),
      headers: acme,
    });
    expect(registered.status).toBe(201);

    const outcomes = async (attempts: Promise<{ status: number; body: Envelope }>[]) =>
      (await Promise.all(attempts)).map(({ status, body }) => [status, body.error?.code ?? null]);
    expect(
      await outcomes([
        act('gated', 'pause', {}),
        act('gated', 'pause', alice),
        act('gated', 'resume', alice),
        act('com.acme.translate', 'pause', parent),
        act('no_such_skill', 'pause'),
        act('com.acme.translate', 'pause', acme),
        act('com.acme.translate', 'pause'),
      ]),
    ).toEqual([
      [401, 'AUTH_REQUIRED'],
      [403, 'ACCESS_DENIED'],
      [403, 'ACCESS_DENIED'],
      [403, 'ACCESS_DENIED'],
      [404, 'SKILL_NOT_FOUND'],
      // Its executions share the remote queue with every registered skill's: its owner is told so.
      [409, 'SKILL_VERSION_CONFLICT'],
      [409, 'SKILL_VERSION_CONFLICT'],
    ]);
    expect(
      (await client.request<SkillDescriptor>('/skills/gated', { headers: ADMIN_HEADERS })).body,
    ).not.toHaveProperty('x-paused');
  });

  it('holds a version first advertised while its skill is paused, until the resume', async () => {
    const { client } = system;
    expect((await act('greet', 'pause')).body.paused).toBe(true);
    const later = await system.addWorker({ WORKER_SKILLS: 'greet@1.0.0,sleepy', WORKER_ID: 'later' });
    const held = [
      await invoked('greet', { name: 'Ada' }, { version: '1.0.0' }),
      await invoked('greet', { names: ['Bo'] }, { version: '2.0.0' }),
    ];
    // The new worker takes jobs: greet@1.0.0's queue held from its first advertisement is why it waits.
    expect((await client.run('sleepy', { ms: 1 })).final.status).toBe('completed');
    for (const id of held) {
      expect((await client.status('greet', id)).status).toBe('accepted');
      expect(later.logs.some((line) => line.execution_id === id)).toBe(false);
    }

    await act('greet', 'resume');
    const finals = await Promise.all(held.map(async (id) => (await client.waitForEnd('greet', id)).final));
    expect(finals.map((final) => [final.status, final.skill_version])).toEqual([
      ['completed', '1.0.0'],
      ['completed', '2.0.0'],
    ]);
  });
});
