import type { WebhookDelivery } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';
import { type ReceivedDelivery, WebhookReceiver } from '../support/webhook-receiver';

interface AcceptedWithWebhook {
  execution_id: string;
  webhook?: { id: string; secret: string };
}

describe('completion webhooks: signed, retried, recorded, redeliverable', () => {
  let system: TestSystem;
  let receiver: WebhookReceiver;
  let key: Record<string, string>;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    system = await TestSystem.start({ OUTBOUND_ALLOW: '127.0.0.1/32' });
    await system.addWorker({
      SKILLS_DIR: `${repoRoot}test/fixtures/skills:${repoRoot}test/fixtures/stream-skills`,
      WEBHOOK_BACKOFF_MS: '200',
      WEBHOOK_ATTEMPTS: '30',
      WEBHOOK_TIMEOUT_MS: '4000',
      WEBHOOK_CONCURRENCY: '4',
    });
    key = { 'x-api-key': await system.client.createKey('webhook-owner') };
  });
  afterAll(async () => {
    await system?.stop();
    await receiver?.stop();
  });

  /** Invokes with the invocation's own webhook; answers the 202's body. */
  const invokeWithWebhook = async (
    url: string,
    inputs: Record<string, unknown> = { text: 'hi' },
    skill = 'echo',
    on?: 'end' | 'change',
  ): Promise<AcceptedWithWebhook> => {
    const accepted = await system.client.invoke(skill, inputs, {
      webhook: { url, ...(on ? { on } : {}) },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    return accepted.body as unknown as AcceptedWithWebhook;
  };

  const deliveriesOf = async (webhookId: string, headers: Record<string, string> = {}) => {
    const answer = await system.client.request<{ deliveries: WebhookDelivery[] }>(
      `/webhooks/${webhookId}/deliveries`,
      { headers },
    );
    expect(answer.status).toBe(200);
    return answer.body.deliveries;
  };

  const receivedFor = async (executionId: string): Promise<ReceivedDelivery[]> =>
    (await receiver.received()).filter((entry) => entry.body?.data?.execution_id === executionId);

  it("POSTs the ended execution to the invocation's webhook, signed with the secret answered once", async () => {
    const accepted = await invokeWithWebhook(`${receiver.url}/hook`, { text: 'ping', count: 2 });
    expect(accepted.webhook?.id).toMatch(/^wh_/);
    expect(accepted.webhook?.secret).toMatch(/^whsec_/);
    await receiver.trust(accepted.webhook?.secret ?? '');
    // One that came before the receiver knew the secret was answered 401 and is sent again.
    const verifiedFor = async (id: string) => (await receivedFor(id)).filter((entry) => entry.verified);
    await expect.poll(() => verifiedFor(accepted.execution_id)).toHaveLength(1);
    const [delivery] = await verifiedFor(accepted.execution_id);
    expect(delivery?.body).toMatchObject({
      type: 'execution.ended',
      data: { execution_id: accepted.execution_id, status: 'completed', output: { text: 'pingping' } },
    });
    // The status representation, as GET status shows it.
    const status = await system.client.status('echo', accepted.execution_id);
    expect(delivery?.body.data).toEqual(status);
    await expect
      .poll(async () => (await deliveriesOf(accepted.webhook?.id ?? ''))[0]?.state)
      .toBe('delivered');
    const [recorded] = await deliveriesOf(accepted.webhook?.id ?? '');
    expect(recorded).toMatchObject({
      id: delivery?.headers['webhook-id'],
      execution_id: accepted.execution_id,
      type: 'execution.ended',
      status: 'completed',
      attempts: [{ http_status: 200 }],
    });
    // The secret is never shown again.
    const shown = await system.client.request(`/webhooks/${accepted.webhook?.id}`);
    expect(shown.status).toBe(200);
    expect(JSON.stringify(shown.body)).not.toContain(accepted.webhook?.secret ?? 'none');
  });

  it('keeps retrying while the receiver refuses or is down, and delivers once it is back', async () => {
    const accepted = await invokeWithWebhook(`${receiver.url}/hook`);
    const webhookId = accepted.webhook?.id ?? '';
    // The receiver does not know this secret yet: it answers 401 and the delivery is retried.
    await expect
      .poll(async () => (await deliveriesOf(webhookId))[0]?.attempts.length ?? 0)
      .toBeGreaterThanOrEqual(2);
    expect((await deliveriesOf(webhookId))[0]).toMatchObject({ state: 'pending' });
    expect((await deliveriesOf(webhookId))[0]?.attempts[0]).toMatchObject({ http_status: 401 });
    await receiver.stop();
    const before = (await deliveriesOf(webhookId))[0]?.attempts.length ?? 0;
    await expect
      .poll(async () => (await deliveriesOf(webhookId))[0]?.attempts.length ?? 0)
      .toBeGreaterThan(before + 1);
    const down = (await deliveriesOf(webhookId))[0]?.attempts.at(-1);
    expect(down?.http_status).toBeUndefined();
    expect(down?.error).toMatch(/could not be reached|ECONNREFUSED/);
    await receiver.restart();
    await receiver.trust(accepted.webhook?.secret ?? '');
    await expect
      .poll(async () => (await deliveriesOf(webhookId))[0]?.state, { timeout: 30_000 })
      .toBe('delivered');
    const received = await receivedFor(accepted.execution_id);
    expect(received.at(-1)?.verified).toBe(true);
  });

  it('redelivers by hand with the same webhook-id, recording the attempt', async () => {
    const accepted = await invokeWithWebhook(`${receiver.url}/hook`);
    await receiver.trust(accepted.webhook?.secret ?? '');
    const webhookId = accepted.webhook?.id ?? '';
    await expect.poll(async () => (await deliveriesOf(webhookId))[0]?.state).toBe('delivered');
    const [delivery] = await deliveriesOf(webhookId);
    const again = await system.client.request<WebhookDelivery>(
      `/webhooks/${webhookId}/deliveries/${delivery?.id}/redeliver`,
      { method: 'POST' },
    );
    expect(again.status).toBe(202);
    expect(again.body.state).toBe('pending');
    await expect.poll(() => receivedFor(accepted.execution_id)).toHaveLength(2);
    const received = await receivedFor(accepted.execution_id);
    expect(received.map((entry) => entry.headers['webhook-id'])).toEqual([delivery?.id, delivery?.id]);
    expect(received.every((entry) => entry.verified)).toBe(true);
    await expect
      .poll(async () => (await deliveriesOf(webhookId))[0])
      .toMatchObject({ state: 'delivered', attempts: [{ http_status: 200 }, { http_status: 200 }] });
    const unknown = await system.client.request(`/webhooks/${webhookId}/deliveries/msg_nope/redeliver`, {
      method: 'POST',
    });
    expect(unknown.status).toBe(404);
  });

  it("tells a standing webhook of its caller's executions, of the skills it names, until it is removed", async () => {
    const anonymous = await system.client.request('/webhooks', { json: { url: `${receiver.url}/hook` } });
    expect(anonymous.status).toBe(401);
    const created = await system.client.request<{ id: string; secret: string; skills: string[] }>(
      '/webhooks',
      {
        json: { url: `${receiver.url}/hook`, skills: ['echo'] },
        headers: key,
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    await receiver.trust(created.body.secret);
    const listed = await system.client.request<{ webhooks: { id: string }[] }>('/webhooks', { headers: key });
    expect(listed.body.webhooks.map((webhook) => webhook.id)).toEqual([created.body.id]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);

    const echo = await system.client.invokeAs('webhook-owner', 'echo', { text: 'standing' }, key);
    const other = await system.client.invokeAs('webhook-owner', 'stepper', { steps: 1, pause_ms: 10 }, key);
    await expect.poll(() => receivedFor(echo)).toHaveLength(1);
    expect((await receivedFor(echo))[0]).toMatchObject({
      verified: true,
      body: { data: { status: 'completed' } },
    });
    await system.client.waitForEnd('stepper', other, 20_000, key);
    // Another caller does not see it.
    const stranger = { 'x-api-key': await system.client.createKey('someone-else') };
    expect((await system.client.request(`/webhooks/${created.body.id}`, { headers: stranger })).status).toBe(
      404,
    );

    expect(
      (await system.client.request(`/webhooks/${created.body.id}`, { method: 'DELETE', headers: key }))
        .status,
    ).toBe(204);
    const after = await system.client.invokeAs('webhook-owner', 'echo', { text: 'after' }, key);
    // An invocation's own webhook on the same kind of execution shows that dispatching went on.
    const marker = await invokeWithWebhook(`${receiver.url}/hook`);
    await receiver.trust(marker.webhook?.secret ?? '');
    await system.client.waitForEnd('echo', after, 20_000, key);
    await expect.poll(() => receivedFor(marker.execution_id)).toHaveLength(1);
    expect(await receivedFor(after)).toEqual([]);
    expect(await receivedFor(other)).toEqual([]);
  });

  it('with on: change, tells of each change before the end', async () => {
    const accepted = await invokeWithWebhook(
      `${receiver.url}/hook`,
      { steps: 3, pause_ms: 200 },
      'stepper',
      'change',
    );
    await receiver.trust(accepted.webhook?.secret ?? '');
    await expect
      .poll(async () =>
        (await receivedFor(accepted.execution_id)).some((entry) => entry.body.type === 'execution.ended'),
      )
      .toBe(true);
    const types = (await receivedFor(accepted.execution_id)).map((entry) => entry.body.type);
    expect(types.filter((type) => type === 'execution.changed').length).toBeGreaterThanOrEqual(2);
    expect(types.filter((type) => type === 'execution.ended')).toHaveLength(1);
  });

  it('a receiver that hangs does not slow executions', async () => {
    // Four hanging deliveries hold every sending slot of the worker (WEBHOOK_CONCURRENCY=4).
    const hanging = await Promise.all([1, 2, 3, 4].map(() => invokeWithWebhook(`${receiver.url}/hang`)));
    await expect
      .poll(async () => (await receiver.received()).filter((entry) => entry.path === '/hang').length)
      .toBeGreaterThanOrEqual(4);
    const runs = await Promise.all([1, 2, 3, 4, 5].map(() => system.client.run('echo', { text: 'fast' })));
    expect(runs.map((run) => run.final.status)).toEqual(Array(5).fill('completed'));
    expect(hanging).toHaveLength(4);
  });

  it('refuses webhook URLs no delivery could go to, and unknown webhooks, with the error envelope', async () => {
    for (const url of [
      'ftp://example.com/hook',
      'http://169.254.169.254/latest',
      'http://user:pw@example.com/',
      // The metadata service and private addresses in the IPv6 forms that carry an IPv4 address.
      'http://[::169.254.169.254]/latest',
      'http://[::a9fe:a9fe]/latest',
      'http://[64:ff9b::10.0.0.1]/',
      'http://[2002:c0a8:101::1]/',
      'http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/',
    ]) {
      const answer = await system.client.invoke('echo', { text: 'x' }, { webhook: { url } });
      expect(answer.status, url).toBe(400);
      expect((answer.body as { error: { code: string } }).error.code).toBe('INVALID_INPUT');
      const registered = await system.client.request<{ error: { code: string } }>('/webhooks', {
        json: { url },
        headers: key,
      });
      expect(registered.status, url).toBe(400);
      expect(registered.body.error.code).toBe('INVALID_INPUT');
    }
    const badBody = await system.client.request('/webhooks', { json: { url: 'not a url' }, headers: key });
    expect(badBody.status).toBe(400);
    const unknown = await system.client.request<{ error: { code: string } }>(
      '/webhooks/wh_0000000000000000000000',
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('WEBHOOK_NOT_FOUND');
  });
});
