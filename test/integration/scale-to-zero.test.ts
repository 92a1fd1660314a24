import type { SkillDescriptor, SkillVersionList } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translateDescriptor } from '../support/descriptors';
import { ADMIN_HEADERS } from '../support/service-process';
import { TestSystem } from '../support/system';

interface Envelope {
  error: { code: string; message: string };
}

/** One sample of the gateway's /metrics, or undefined when it has none with these labels. */
async function gatewaySample(
  system: TestSystem,
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const text = await (await fetch(`${system.gateway.url}/metrics`)).text();
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  const line = text
    .split('\n')
    .find((each) => each.startsWith(`${name}{`) && wanted.every((pair) => each.includes(pair)));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

// A pool that scales to zero (WORKER_SCALE_TO_ZERO): its versions stay invocable with no worker
// alive, their executions wait in the queue, the gateway exports that queue for KEDA to wake the
// pool, and the next worker runs them. Real gateway and worker processes on a Redis of their own.
describe('scale to zero', () => {
  let system: TestSystem;
  const scalesToZero = { WORKER_SCALE_TO_ZERO: 'true', WORKER_SKILLS: 'echo' };

  beforeAll(async () => {
    system = await TestSystem.start();
  });
  afterAll(() => system?.stop());

  it("keeps a stopped pool's version invocable: 202, queued, counted at the gateway's /metrics, run by the next worker", async () => {
    const first = await system.addWorker(scalesToZero);
    expect((await system.client.run('echo', { text: 'warm' })).final.status).toBe('completed');
    // SIGTERM: the worker drains and withdraws its lease, as a pod scaled in by KEDA does.
    await first.stop();

    const descriptor = await system.client.request<SkillDescriptor>('/skills/echo');
    expect(descriptor.status).toBe(200);
    expect(descriptor.body['x-dormant']).toBe(true);
    const versions = await system.client.request<SkillVersionList>('/skills/echo/versions');
    expect(versions.body.versions).toEqual([expect.objectContaining({ version: '1.0.0', dormant: true })]);
    const listed = await system.client.request<{ skills: SkillDescriptor[] }>('/skills?q=echo');
    expect(listed.body.skills.find((skill) => skill.id === 'echo')?.['x-dormant']).toBe(true);

    const accepted = await system.client.invoke('echo', { text: 'cold' });
    expect(accepted.status).toBe(202);
    const executionId = String(accepted.body.execution_id);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await system.client.status('echo', executionId)).status).toBe('accepted');

    // No worker exports the queue now: the gateway does, for KEDA to wake the pool.
    const echo = { skill: 'echo', version: '1.0.0' };
    expect(await gatewaySample(system, 'skillrun_queue_jobs', { ...echo, state: 'waiting' })).toBe(1);
    expect(await gatewaySample(system, 'skillrun_queue_age_seconds', echo)).toBeGreaterThan(1);
    expect(await gatewaySample(system, 'skillrun_scale_to_zero', echo)).toBe(1);

    await system.addWorker(scalesToZero);
    const { final } = await system.client.waitForEnd('echo', executionId);
    expect(final.status).toBe('completed');
    expect(final.output).toMatchObject({ text: 'cold' });
    expect(await gatewaySample(system, 'skillrun_queue_jobs', { ...echo, state: 'waiting' })).toBe(0);
    // While a worker runs it, the version is not dormant.
    expect((await system.client.request<SkillDescriptor>('/skills/echo')).body['x-dormant']).toBeUndefined();
  });

  it("ends a dormant version's execution past its queue timeout, unrun, when no worker comes", async () => {
    await Promise.all(system.workers.map((worker) => worker.stop()));
    const accepted = await system.client.invoke(
      'echo',
      { text: 'late' },
      { context: { queue_timeout_ms: 300 } },
    );
    expect(accepted.status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ended = await system.client.status('echo', String(accepted.body.execution_id));
    expect(ended.status).toBe('timeout');
    expect(ended.error).toMatchObject({ code: 'EXECUTION_TIMEOUT', details: { never_started: true } });
  });

  it('forgets a dormant version only for an admin and once no worker hosts it; it is then not found', async () => {
    const url = '/skills/echo/versions/1.0.0/dormancy';
    const anonymous = await system.client.request<Envelope>(url, { method: 'DELETE' });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'AUTH_REQUIRED']);
    const key = await system.client.createKey('not-an-admin');
    const denied = await system.client.request<Envelope>(url, {
      method: 'DELETE',
      headers: { 'x-api-key': key },
    });
    expect([denied.status, denied.body.error.code]).toEqual([403, 'ACCESS_DENIED']);
    const badVersion = await system.client.request<Envelope>('/skills/echo/versions/one/dormancy', {
      method: 'DELETE',
      headers: ADMIN_HEADERS,
    });
    expect([badVersion.status, badVersion.body.error.code]).toEqual([400, 'INVALID_INPUT']);

    // A live scale-to-zero worker would mark it again at its next heartbeat: refused.
    const worker = await system.addWorker(scalesToZero);
    const hosted = await system.client.request<Envelope>(url, { method: 'DELETE', headers: ADMIN_HEADERS });
    expect([hosted.status, hosted.body.error.code]).toEqual([409, 'SKILL_VERSION_CONFLICT']);
    await worker.stop();

    const forgotten = await system.client.request(url, { method: 'DELETE', headers: ADMIN_HEADERS });
    expect(forgotten.status).toBe(204);
    const again = await system.client.request<Envelope>(url, { method: 'DELETE', headers: ADMIN_HEADERS });
    expect([again.status, again.body.error.code]).toEqual([404, 'SKILL_NOT_FOUND']);
    const refused = await system.client.invoke('echo', { text: 'gone' });
    expect([refused.status, (refused.body as unknown as Envelope).error.code]).toEqual([
      404,
      'SKILL_NOT_FOUND',
    ]);
    expect(await gatewaySample(system, 'skillrun_scale_to_zero', { skill: 'echo' })).toBeUndefined();
  });

  it('follows the latest worker: one without the setting takes the mark away', async () => {
    await (await system.addWorker(scalesToZero)).stop();
    expect((await system.client.request<SkillDescriptor>('/skills/echo')).body['x-dormant']).toBe(true);
    const plain = await system.addWorker({ WORKER_SKILLS: 'echo' });
    await plain.stop();
    expect((await system.client.request<Envelope>('/skills/echo')).status).toBe(404);
  });

  it('refuses a registered descriptor that claims to be dormant', async () => {
    const answer = await system.client.request<Envelope & { error: { details?: { path: string }[] } }>(
      '/skills',
      {
        json: {
          ...translateDescriptor,
          id: 'com.example.dormant-1',
          'x-dormant': true,
        },
        headers: ADMIN_HEADERS,
      },
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.details?.[0]?.path).toBe('/x-dormant');
  });
});
