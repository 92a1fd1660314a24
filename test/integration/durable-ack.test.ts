import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WEBHOOK_QUEUE } from '@skillrun/core/data';
import { RedisServerProcess } from '@skillrun/redis-server';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { everythingStored } from '../support/redis-contents';
import { RedisReplica } from '../support/redis-replica';
import {
  ADMIN_HEADERS,
  fixtureSkills,
  repoRoot,
  type ServiceProcess,
  type StartedGateway,
  startGateway,
  startWorker,
} from '../support/service-process';
import { WebhookReceiver } from '../support/webhook-receiver';

// ACK_REPLICAS=1 against a real replica (redis-server --replicaof): a launch, a cancel and a task's
// hand-in are answered once the replica holds them. With the replica paused (SIGSTOP: connected,
// acknowledging nothing), an invocation is answered 503 with Retry-After and withdrawn, so that
// nothing runs; a cancel or a hand-in 503 (it holds on the master: asked again once the replica is
// back, the cancel answers the canceled execution, the hand-in that the task has ended); and an
// execution's end, which the worker writes without waiting, is not told until the replica has it,
// by GET status nor by a listing, nor by a webhook (the worker, with ACK_REPLICAS=1 too, puts its
// delivery off until the replica has it).

interface Refusal {
  error: { code: string; details?: { reason?: string; undone?: boolean } };
}

/** A read refused as a status the replicas have not confirmed is: 503, to be asked again. */
function expectNotReplicated(answer: { status: number; headers: Headers; body: Refusal }): void {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('1');
  expect(answer.body.error).toMatchObject({
    code: 'SERVICE_UNAVAILABLE',
    details: { reason: 'not_replicated', undone: false },
  });
}

describe('ACK_REPLICAS: answered once a replica holds it', () => {
  let master: RedisServerProcess;
  let replica: RedisReplica;
  let dir: string;
  let gateway: StartedGateway;
  let worker: ServiceProcess;
  let client: Client;
  let admin: Redis;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillrun-durable-ack-'));
    master = await RedisServerProcess.start();
    replica = await RedisReplica.start(master.port, dir);
    admin = new Redis(master.url);
    receiver = await WebhookReceiver.start();
    const env = {
      REDIS_URL: master.url,
      ACK_REPLICAS: '1',
      ACK_TIMEOUT_MS: '300',
      OUTBOUND_ALLOW: '127.0.0.1/32',
    };
    worker = await startWorker({
      ...env,
      SKILLS_DIR: `${fixtureSkills}:${repoRoot}test/fixtures/task-skills`,
      WORKER_SKILLS: 'echo,sleepy,review_request',
      WEBHOOK_BACKOFF_MS: '200',
    });
    gateway = await startGateway(env);
    client = new Client(gateway.url);
  });

  afterAll(async () => {
    replica?.resume();
    await Promise.all([gateway?.process.stop(), worker?.stop(), receiver?.stop()]);
    admin?.disconnect();
    await replica?.stop();
    await master?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers 202 with the replica there, and the execution runs', async () => {
    const { final } = await client.run('echo', { text: 'kept' });
    expect(final).toMatchObject({ status: 'completed', output: { text: 'kept' } });
  });

  it('answers 503 with the replica paused, and withdraws the launch: nothing runs', async () => {
    const marker = `withdrawn-${process.pid}`;
    replica.pause();
    try {
      const answer = await client.invoke('echo', { text: marker });
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect((answer.body as unknown as Refusal).error).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        details: { reason: 'not_replicated', undone: true },
      });
      // Neither its record nor its job is left (nothing holds its inputs): no worker can take it,
      // now or once the replica is back.
      const stored = await everythingStored(admin);
      expect(stored.filter((value) => value.includes(marker))).toEqual([]);
      expect((await client.request('/readyz')).status).toBe(200);
    } finally {
      replica.resume();
    }
    // With the replica back, launches are answered again.
    await expect.poll(async () => (await client.invoke('echo', { text: 'back' })).status).toBe(202);
  });

  it('answers a cancel 503 while the replica is paused, and the canceled execution once it is back', async () => {
    const accepted = await client.invoke('sleepy', { ms: 4000 });
    expect(accepted.status).toBe(202);
    const id = String(accepted.body.execution_id);
    await expect.poll(async () => (await client.status('sleepy', id)).status).toBe('running');
    replica.pause();
    try {
      const refused = await client.cancel('sleepy', id);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect((refused.body as unknown as Refusal).error.details).toEqual({
        reason: 'not_replicated',
        undone: false,
      });
    } finally {
      replica.resume();
    }
    const again = await client.cancel('sleepy', id);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('canceled');
  });

  /** Until the worker has ended `id` on the master, which the paused replica does not acknowledge. */
  const endedOnMaster = (id: string) =>
    expect.poll(() => admin.hget(`{skillrun}:exec:${id}`, 'status'), { timeout: 10_000 }).toBe('completed');

  it('tells a status past accepted only once the replica has it: an end 503 while it is paused, told once it is back', async () => {
    const accepted = await client.invoke('sleepy', { ms: 500 });
    expect(accepted.status).toBe(202);
    const id = String(accepted.body.execution_id);
    await expect.poll(async () => (await client.status('sleepy', id)).status).toBe('running');
    replica.pause();
    try {
      await endedOnMaster(id);
      expectNotReplicated(await client.request<Refusal>(`/skills/sleepy/status/${id}`));
    } finally {
      replica.resume();
    }
    expect((await client.status('sleepy', id)).status).toBe('completed');
  });

  it('tells a listing (GET /executions) with a status past accepted only once the replica has it, as GET status', async () => {
    const accepted = await client.invoke('sleepy', { ms: 300 });
    expect(accepted.status).toBe(202);
    const id = String(accepted.body.execution_id);
    const list = () =>
      client.request<Refusal & { executions?: { execution_id: string; status: string }[] }>(
        '/executions?skill_id=sleepy&limit=100',
        { headers: ADMIN_HEADERS },
      );
    replica.pause();
    try {
      await endedOnMaster(id);
      expectNotReplicated(await list());
    } finally {
      replica.resume();
    }
    const listed = await list();
    expect(listed.status).toBe(200);
    expect(listed.body.executions).toContainEqual(
      expect.objectContaining({ execution_id: id, status: 'completed' }),
    );
  });

  it("sends an ended execution's webhook only once the replica has its end: put off while it is paused, without spending an attempt", async () => {
    const accepted = await client.invoke(
      'sleepy',
      { ms: 1000 },
      { webhook: { url: `${receiver.url}/hook` } },
    );
    expect(accepted.status).toBe(202);
    const id = String(accepted.body.execution_id);
    const webhook = accepted.body.webhook as { id: string; secret: string };
    await receiver.trust(webhook.secret);
    const receivedFor = async () =>
      (await receiver.received()).filter((entry) => entry.body?.data?.execution_id === id && entry.verified);
    const deliveries = new Queue(WEBHOOK_QUEUE, { connection: admin, prefix: '{skillrun}' });
    await expect.poll(async () => (await client.status('sleepy', id)).status).toBe('running');
    replica.pause();
    try {
      await endedOnMaster(id);
      await expect.poll(() => admin.lindex(`{skillrun}:deliveries:${webhook.id}`, 0)).toBeTruthy();
      const deliveryId = String(await admin.lindex(`{skillrun}:deliveries:${webhook.id}`, 0));
      // Taken by the sender and put off, then taken and put off again: never sent, no attempt spent.
      await expect
        .poll(async () => (await deliveries.getJob(deliveryId))?.attemptsStarted ?? 0, { timeout: 10_000 })
        .toBeGreaterThanOrEqual(2);
      expect(await receivedFor()).toEqual([]);
      expect(await admin.hget(`{skillrun}:delivery:${deliveryId}`, 'state')).toBe('pending');
      expect(await admin.llen(`{skillrun}:delivery:${deliveryId}:attempts`)).toBe(0);
    } finally {
      replica.resume();
      await deliveries.close();
    }
    await expect.poll(receivedFor, { timeout: 10_000 }).toHaveLength(1);
    const [delivery] = await receivedFor();
    expect(delivery?.body).toMatchObject({
      type: 'execution.ended',
      data: { execution_id: id, status: 'completed' },
    });
  });

  it("answers a task's hand-in 503 while the replica is paused; kept, it is not handed in twice", async () => {
    const accepted = await client.invoke('review_request', { document: 'the plan' });
    expect(accepted.status).toBe(202);
    const id = String(accepted.body.execution_id);
    await expect.poll(async () => (await client.status('review_request', id)).task?.state).toBe('open');
    const handIn = () =>
      client.request<Refusal>(`/tasks/${id}/complete`, {
        json: { output: { approved: true } },
        headers: ADMIN_HEADERS,
      });
    replica.pause();
    try {
      const refused = await handIn();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.body.error.details).toEqual({ reason: 'not_replicated', undone: false });
    } finally {
      replica.resume();
    }
    // It holds on the master: handed in again, it has ended already, as completed.
    expect((await handIn()).body.error.code).toBe('EXECUTION_ENDED');
    expect((await client.waitForEnd('review_request', id)).final).toMatchObject({
      status: 'completed',
      output: { approved: true },
    });
  });
});
