import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Execution, SkillDescriptor } from '@skillrun/core';
import { RedisKeys, remoteQueueName } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/client';
import { translateDescriptor } from '../support/descriptors';
import { ADMIN_HEADERS, repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

// Two independent deployments, each with its own Redis, gateway and worker: the provider hosts
// skills; the consumer registers them and runs them by calling the provider (api federation).

const PROVIDER_SKILLS = `${repoRoot}test/fixtures/skills:${repoRoot}test/fixtures/auth-skills`;
const CONSUMER_SKILLS = `${repoRoot}test/fixtures/task-skills`;
const AS_CONSUMER = { caller: { id: 'consumer', type: 'service' } };
const SECRETS = { PROVIDER_SECRETS_KEY: 'federation-test-secret-0123456789abcdef' };

/** Registers, in `consumer`, the provider's descriptor of one of its skills. */
async function register(consumer: Client, provider: Client, skillId: string): Promise<SkillDescriptor> {
  const descriptor = (await provider.request<SkillDescriptor>(`/skills/${skillId}`)).body;
  const registered = await consumer.request('/skills', { json: descriptor, headers: ADMIN_HEADERS });
  expect(registered.status).toBe(201);
  return descriptor;
}

describe('api federation: a skill registered from another deployment runs here', () => {
  let provider: TestSystem;
  let consumer: TestSystem;
  let consumerRedis: Redis;
  let callerKey: string;

  const invoke = (skillId: string, inputs: unknown, extra: Record<string, unknown> = {}, headers = {}) =>
    consumer.client.invoke(skillId, inputs, extra, headers);
  /** Waits for the end of an execution the consumer's caller owns. */
  const endOf = async (skillId: string, executionId: string) =>
    (await consumer.client.waitForEnd(skillId, executionId, undefined, { 'x-api-key': callerKey })).final;
  const remoteIdOf = (executionId: string) =>
    consumerRedis.hget(`{skillrun}:exec:${executionId}`, 'remote_execution_id');

  beforeAll(async () => {
    provider = await TestSystem.start({ SKILLS_DIR: PROVIDER_SKILLS });
    await provider.addWorker();
    consumer = await TestSystem.start({ ...SECRETS, SKILLS_DIR: CONSUMER_SKILLS });
    await consumer.addWorker({ OUTBOUND_ALLOW: '127.0.0.1/32' });
    consumerRedis = new Redis(consumer.redis.url);
    callerKey = await consumer.client.createKey('consumer');
    await register(consumer.client, provider.client, 'keyed_echo');
    await register(consumer.client, provider.client, 'sleepy');
  });
  afterAll(async () => {
    consumerRedis?.disconnect();
    await Promise.all([consumer?.stop(), provider?.stop()]);
  });

  it('calls the provider with the credentials an admin set, which are never shown again', async () => {
    const headers = { 'x-echo-key': callerKey };
    const without = await invoke('keyed_echo', { text: 'hi' }, AS_CONSUMER, headers);
    expect(without.status).toBe(202);
    const refused = await endOf('keyed_echo', String(without.body.execution_id));
    expect(refused.status).toBe('failed');
    expect(refused.error?.code).toBe('TOOL_NOT_AVAILABLE');

    const providerKey = await provider.client.createKey('federation');
    const set = await consumer.client.request('/skills/keyed_echo/credentials', {
      method: 'PUT',
      json: { api_key: providerKey, caller_id: 'federation' },
      headers: ADMIN_HEADERS,
    });
    expect([set.status, JSON.stringify(set.body)]).toEqual([204, '{}']);
    const stored = await consumerRedis.get('{skillrun}:provider-credentials:keyed_echo');
    expect(stored).not.toContain(providerKey.slice(-20));

    const accepted = await invoke('keyed_echo', { text: 'federated' }, AS_CONSUMER, headers);
    const final = await endOf('keyed_echo', String(accepted.body.execution_id));
    expect([final.status, final.error]).toEqual(['completed', undefined]);
    expect(final.output).toEqual({ text: 'federated' });
    // The provider ran it for the consumer's caller, with the consumer's trace id.
    const remote = await provider.client.request<Execution>(
      `/skills/keyed_echo/status/${await remoteIdOf(final.execution_id)}`,
      { headers: { 'x-api-key': providerKey } },
    );
    expect(remote.body).toMatchObject({
      status: 'completed',
      caller: { id: 'federation' },
      trace_id: final.trace_id,
    });
  });

  it('refuses inputs the descriptor does not allow before anything runs', async () => {
    const answer = await invoke('keyed_echo', { words: 'no text' }, AS_CONSUMER, { 'x-echo-key': callerKey });
    expect(answer.status).toBe(400);
  });

  it('applies its own timeout, and its cancel reaches the provider', async () => {
    const timed = await invoke('sleepy', { ms: 4000 }, { context: { timeout_ms: 600 } });
    const { final } = await consumer.client.waitForEnd('sleepy', String(timed.body.execution_id));
    expect([final.status, final.error?.code]).toEqual(['timeout', 'EXECUTION_TIMEOUT']);

    const running = await invoke('sleepy', { ms: 4000 });
    const id = String(running.body.execution_id);
    await expect.poll(() => remoteIdOf(id)).toBeTruthy();
    expect((await consumer.client.cancel('sleepy', id)).body.status).toBe('canceled');
    const remoteId = String(await remoteIdOf(id));
    await expect.poll(async () => (await provider.client.status('sleepy', remoteId)).status).toBe('canceled');
  });

  it('takes a delayed execution canceled before it is due off the remote queue: the provider never hears of it', async () => {
    const delayed = await invoke('sleepy', { ms: 10 }, { context: { delay_ms: 1000 } });
    const id = String(delayed.body.execution_id);
    expect((await consumer.client.cancel('sleepy', id)).body.status).toBe('canceled');
    expect(await consumerRedis.exists(new RedisKeys('{skillrun}').job(remoteQueueName(), id))).toBe(0);
    // One due after it runs through the provider: by then the canceled one would have been due too.
    const after = await invoke('sleepy', { ms: 10 }, { context: { delay_ms: 1500 } });
    const { final } = await consumer.client.waitForEnd('sleepy', String(after.body.execution_id));
    expect(final.status).toBe('completed');
    expect(await remoteIdOf(id)).toBeNull();
  });

  it('runs a composite whose step is a registered skill', async () => {
    // Its worker starts once the step's skill is registered: composites are checked at start.
    await consumer.addWorker({
      OUTBOUND_ALLOW: '127.0.0.1/32',
      SKILLS_DIR: `${repoRoot}test/fixtures/federation-skills`,
    });
    const { final } = await consumer.client.run('relay_sleep', { ms: 20 });
    expect(final.status).toBe('completed');
    expect(final.output).toEqual({ slept: expect.any(Number) });
    expect(final.steps?.map(({ skill_id, status }) => [skill_id, status])).toEqual([['sleepy', 'completed']]);
  });

  /**
   * A provider of another make at a server of its own, registered in the consumer as `id`; `body`
   * runs with it, and it is closed after.
   */
  async function withOtherProvider(
    id: string,
    answer: (req: IncomingMessage, body: string, res: ServerResponse) => void,
    body: () => Promise<void>,
  ): Promise<void> {
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        answer(req, text, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const descriptor = {
        ...translateDescriptor,
        id,
        auth: { type: 'none' },
        access: 'public',
        endpoint: {
          ...translateDescriptor.endpoint,
          url: `${base}/invoke`,
          status_url: `${base}/s/{execution_id}`,
          result_url: `${base}/r/{execution_id}`,
        },
      };
      expect(
        (await consumer.client.request('/skills', { json: descriptor, headers: ADMIN_HEADERS })).status,
      ).toBe(201);
      await body();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  it('takes the output a provider answers at once (200), and validates it against the descriptor', async () => {
    // It answers POST invoke synchronously, with or without a good output.
    const answer = (_req: IncomingMessage, body: string, res: ServerResponse) => {
      const { inputs } = JSON.parse(body) as { inputs: { text: string } };
      res.end(
        JSON.stringify(
          inputs.text === 'bad' ? { translated_text: 42 } : { translated_text: inputs.text.toUpperCase() },
        ),
      );
    };
    await withOtherProvider('com.example.sync-1', answer, async () => {
      const inputs = { text: 'hola', target_language: 'en' };
      const done = await consumer.client.run('com.example.sync-1', inputs);
      expect([done.final.status, done.final.output]).toEqual(['completed', { translated_text: 'HOLA' }]);
      const bad = await consumer.client.run('com.example.sync-1', { ...inputs, text: 'bad' });
      expect([bad.final.status, bad.final.error?.code]).toEqual(['failed', 'INVALID_OUTPUT']);
    });
  });

  it('polls a provider that does not wait as its Retry-After-Ms says, before its Retry-After', async () => {
    // Running for its first two reads, each time asking for a minute by Retry-After and 10 ms by
    // Retry-After-Ms: a minute would outlast the execution's 20 s timeout.
    const reads: string[] = [];
    const answer = (req: IncomingMessage, _body: string, res: ServerResponse) => {
      const hint = { 'retry-after': '60', 'retry-after-ms': '10' };
      if (req.method === 'POST') {
        res.writeHead(202, hint).end(JSON.stringify({ execution_id: 'p1', status: 'accepted' }));
        return;
      }
      reads.push(String(req.url));
      if (reads.length <= 2)
        res.writeHead(200, hint).end(JSON.stringify({ execution_id: 'p1', status: 'running' }));
      else
        res.end(
          JSON.stringify({ execution_id: 'p1', status: 'completed', output: { translated_text: 'HI' } }),
        );
    };
    await withOtherProvider('com.example.polled-1', answer, async () => {
      const inputs = { text: 'hi', target_language: 'en' };
      const done = await consumer.client.run('com.example.polled-1', inputs, {
        context: { timeout_ms: 20_000 },
      });
      expect([done.final.status, done.final.output]).toEqual(['completed', { translated_text: 'HI' }]);
      expect(reads).toEqual(['/s/p1', '/s/p1', '/s/p1']);
    });
  });

  it('refuses a provider at an address it may not reach', async () => {
    const strict = await TestSystem.start({ ...SECRETS, SKILLS_DIR: CONSUMER_SKILLS });
    try {
      await strict.addWorker();
      await register(strict.client, provider.client, 'sleepy');
      const { final } = await strict.client.run('sleepy', { ms: 1 });
      expect(final.status).toBe('failed');
      expect(final.error?.code).toBe('TOOL_NOT_AVAILABLE');
      expect(final.error?.message).toMatch(/127\.0\.0\.1 is a loopback address: refused unless allowed/);
    } finally {
      await strict.stop();
    }
  });

  it('fails an execution whose provider goes away while it runs, with a clear code', async () => {
    const accepted = await invoke('sleepy', { ms: 4000 });
    const id = String(accepted.body.execution_id);
    await expect.poll(() => remoteIdOf(id)).toBeTruthy();
    await provider.gateway.process.stop();
    const { final } = await consumer.client.waitForEnd('sleepy', id, 30_000);
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('FETCH_FAILED');
    expect((final as Execution).error?.message).toMatch(/provider/);
  });
});
