import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { ADMIN_HEADERS, type StartedGateway, startGateway, TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

interface QueueList {
  queues: { name: string; readOnlyMode: boolean; isPaused: boolean }[];
}

const DASHBOARD = '/admin/queues';
const ECHO_QUEUE = encodeURIComponent('skill.echo@1.0.0');
const basic = (password: string) => ({
  authorization: `Basic ${Buffer.from(`operator:${password}`).toString('base64')}`,
});

describe('the job dashboard (bull-board) at /admin/queues', () => {
  let system: TestSystem;
  let withActions: StartedGateway;
  let switchedOff: StartedGateway;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ WORKER_SKILLS: 'echo' });
    [withActions, switchedOff] = await Promise.all([
      startGateway({ ...system.env, QUEUE_DASHBOARD_ACTIONS: 'true' }),
      startGateway({ ...system.env, QUEUE_DASHBOARD: 'false' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([withActions?.process.stop(), switchedOff?.process.stop()]);
    await system?.stop();
  });

  it('is closed to anonymous callers (401, with a Basic challenge) and to non-admin keys (403)', async () => {
    const { client } = system;
    const anonymous = await client.request(DASHBOARD);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect(anonymous.body).toMatchObject({ error: { code: 'AUTH_REQUIRED' } });
    expect((await client.request(DASHBOARD, { headers: basic('not-the-key') })).status).toBe(401);

    const created = await client.request<{ key: string }>('/admin/keys', {
      headers: ADMIN_HEADERS,
      json: { caller_id: 'someone', scopes: ['skill:invoke', 'skill:read'] },
    });
    const nonAdmin = await client.request(`${DASHBOARD}/api/queues`, {
      headers: { 'x-api-key': created.body.key },
    });
    expect(nonAdmin.status).toBe(403);
    expect(nonAdmin.body).toMatchObject({ error: { code: 'ACCESS_DENIED' } });
  });

  it('shows admins the page (X-API-Key, or Basic with the key as password) and every queue, read-only', async () => {
    for (const headers of [ADMIN_HEADERS, basic(TEST_ADMIN_KEY)]) {
      const page = await fetch(`${system.gateway.url}${DASHBOARD}`, { headers });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      expect(html).toContain('<title>skillrun queues</title>');
      const script = /src="(static\/js\/main\.[^"]+\.js)"/.exec(html)?.[1];
      const asset = await fetch(`${system.gateway.url}${DASHBOARD}/${script}`, { headers });
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toMatch(/javascript/);
    }
    const listed = await queueList(system.client);
    // Each version's queue and the queue of its high-priority executions.
    expect(listed.queues).toEqual([
      expect.objectContaining({ name: 'skill.echo@1.0.0!high', readOnlyMode: true }),
      expect.objectContaining({ name: 'skill.echo@1.0.0', readOnlyMode: true }),
    ]);

    await system.addWorker({ WORKER_SKILLS: 'sleepy' });
    const later = await queueList(system.client);
    expect(later.queues.map((queue) => queue.name).sort()).toEqual([
      'skill.echo@1.0.0',
      'skill.echo@1.0.0!high',
      'skill.sleepy@1.0.0',
      'skill.sleepy@1.0.0!high',
    ]);
  });

  it('refuses changes in read-only mode, and makes them when QUEUE_DASHBOARD_ACTIONS=true', async () => {
    const readOnly = await system.client.request(`${DASHBOARD}/api/queues/${ECHO_QUEUE}/pause`, {
      method: 'PUT',
      headers: ADMIN_HEADERS,
    });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body).toMatchObject({ error: { code: 'ACCESS_DENIED' } });
    const cleaned = await system.client.request(`${DASHBOARD}/api/queues/${ECHO_QUEUE}/clean/completed`, {
      method: 'PUT',
      headers: ADMIN_HEADERS,
    });
    expect(cleaned.status).toBe(403);
    expect(echoQueue(await queueList(system.client))?.isPaused).toBe(false);

    const actions = new Client(withActions.url);
    expect(echoQueue(await queueList(actions))?.readOnlyMode).toBe(false);
    const paused = await actions.request(`${DASHBOARD}/api/queues/${ECHO_QUEUE}/pause`, {
      method: 'PUT',
      headers: ADMIN_HEADERS,
    });
    expect(paused.status).toBe(200);
    expect(echoQueue(await queueList(system.client))?.isPaused).toBe(true);
    await actions.request(`${DASHBOARD}/api/queues/${ECHO_QUEUE}/resume`, {
      method: 'PUT',
      headers: ADMIN_HEADERS,
    });
  });

  it('is not served at all when QUEUE_DASHBOARD=false', async () => {
    const answer = await new Client(switchedOff.url).request(DASHBOARD, { headers: ADMIN_HEADERS });
    expect(answer.status).toBe(404);
  });
});

const echoQueue = (list: QueueList) => list.queues.find((queue) => queue.name === 'skill.echo@1.0.0');

async function queueList(client: Client): Promise<QueueList> {
  const answer = await client.request<QueueList>(`${DASHBOARD}/api/queues`, { headers: ADMIN_HEADERS });
  expect(answer.status).toBe(200);
  return answer.body;
}
