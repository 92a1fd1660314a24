import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, Client } from '../support/client';
import { ADMIN_HEADERS, ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

type Envelope = { error: { code: string; message: string; details?: Record<string, unknown> } };

const LIMITS = {
  default: { skills: { sleepy: { concurrency: 2 } } },
  callers: {
    burst: { skills: { echo: { rate: { requests: 3, per_seconds: 300 } } } },
    vip: { skills: { sleepy: { concurrency: 4 } } },
    quota: { concurrency: 3, skills: { sleepy: { concurrency: 10 } } },
  },
};

describe('per-caller rate limits and concurrency quotas', () => {
  let system: TestSystem;
  let client: Client;
  const keys: Record<string, string> = {};

  const as = (caller: string) => ({ 'x-api-key': keys[caller] ?? '' });
  const invokeAs = (caller: string | undefined, skill: string, inputs: unknown, extra = {}) =>
    client.invoke(
      skill,
      inputs,
      { caller: { id: caller ?? 'anyone', type: 'user' }, ...extra },
      caller ? as(caller) : {},
    );
  const sleepAs = (caller: string | undefined, ms: number, extra = {}) =>
    invokeAs(caller, 'sleepy', { ms }, extra);

  beforeAll(async () => {
    system = await TestSystem.start({ LIMITS: JSON.stringify(LIMITS), TRUST_PROXY: 'loopback' });
    await system.addWorker({ WORKER_CONCURRENCY: '8' });
    client = system.client;
    for (const caller of ['burst', 'vip', 'quota']) {
      const created = await client.request<{ key: string }>('/admin/keys', {
        json: { caller_id: caller, scopes: ['skill:invoke', 'skill:read'] },
        headers: ADMIN_HEADERS,
      });
      keys[caller] = created.body.key;
    }
  });
  afterAll(async () => {
    await system?.stop();
  });

  async function waitForEnd(caller: string | undefined, answer: Answer) {
    const path = `/skills/sleepy/status/${answer.body.execution_id}`;
    for (;;) {
      const status = await client.request<{ status: string }>(path, { headers: caller ? as(caller) : {} });
      if (['completed', 'failed', 'timeout'].includes(status.body.status)) return status.body.status;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it("limits one skill's invocations per window for a caller, not its other skills", async () => {
    const answers = [];
    for (let index = 0; index < 4; index++) answers.push(await invokeAs('burst', 'echo', { text: 'x' }));
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 429]);
    expect(answers[0]?.headers.get('ratelimit-policy')).toBe('"skill-invocations";q=3;w=300');
    expect(answers[0]?.headers.get('ratelimit')).toMatch(/^"skill-invocations";r=2;t=\d+$/);
    const refused = answers[3] as Answer;
    expect(refused.headers.get('ratelimit')).toMatch(/^"skill-invocations";r=0;t=\d+$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(200);
    expect((refused.body as Envelope).error).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      recoverable: true,
      message: 'Rate limit exceeded: at most 3 invocations of "echo" per 300 s',
      details: { policy: 'skill-invocations', quota: 3, window_seconds: 300 },
    });
    expect((await invokeAs('burst', 'sleepy', { ms: 0 })).status).toBe(202);
    expect((await invokeAs(undefined, 'echo', { text: 'x' })).status).toBe(202);
  });

  it('holds a slot per execution in flight and frees it when the execution ends, however it ends', async () => {
    const running = [await sleepAs(undefined, 2500), await sleepAs(undefined, 2500)];
    expect(running.map((answer) => answer.status)).toEqual([202, 202]);
    expect(running[0]?.headers.get('ratelimit-policy')).toBe(
      '"skill-in-flight";q=2;qu="concurrent-requests"',
    );
    expect(running[1]?.headers.get('ratelimit')).toBe('"skill-in-flight";r=0');
    const refused = await sleepAs(undefined, 2500);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((refused.body as Envelope).error).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      details: { policy: 'skill-in-flight', quota: 2, retry_after_seconds: 1 },
    });
    expect((await invokeAs(undefined, 'echo', { text: 'other skill' })).status).toBe(202);
    for (const answer of running) expect(await waitForEnd(undefined, answer)).toBe('completed');

    const timedOut = [
      await sleepAs(undefined, 3000, { context: { timeout_ms: 200 } }),
      await sleepAs(undefined, 3000, { context: { timeout_ms: 200 } }),
    ];
    for (const answer of timedOut) expect(await waitForEnd(undefined, answer)).toBe('timeout');
    const invalid = await sleepAs(undefined, -1);
    expect(invalid.status).toBe(400);
    const again = await sleepAs(undefined, 0);
    expect(again.status).toBe(202);
    expect(again.headers.get('ratelimit')).toBe('"skill-in-flight";r=1');
  });

  it('counts anonymous callers by their address, as the trusted proxy gives it', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const sleep = (address: string) =>
      client.invoke('sleepy', { ms: 2500 }, {}, from(address)) as Promise<Answer>;
    const first = [await sleep('203.0.113.7'), await sleep('203.0.113.7')];
    expect(first.map((answer) => answer.status)).toEqual([202, 202]);
    expect((await sleep('203.0.113.7')).status).toBe(429);
    const other = await sleep('198.51.100.4');
    expect(other.status).toBe(202);
    for (const answer of [...first, other]) expect(await waitForEnd(undefined, answer)).toBe('completed');
  });

  it("applies a caller's own quota instead of the default", async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => sleepAs('vip', 2500)));
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(4);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(1);
    await Promise.all(answers.filter((answer) => answer.status === 202).map((a) => waitForEnd('vip', a)));
  });

  it("counts a caller's executions of every skill against its overall quota", async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => sleepAs('quota', 2500)));
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(3);
    const refused = answers.find((answer) => answer.status === 429) as Answer;
    expect((refused.body as Envelope).error.details).toMatchObject({ policy: 'in-flight', quota: 3 });
    expect((await invokeAs('quota', 'echo', { text: 'x' })).status).toBe(429);
    await Promise.all(answers.filter((answer) => answer.status === 202).map((a) => waitForEnd('quota', a)));
    expect((await invokeAs('quota', 'echo', { text: 'x' })).status).toBe(202);
  });

  it('refuses to start with LIMITS that are not valid, naming the setting', async () => {
    for (const limits of [
      '{not json',
      '{"default":{"rate":{"requests":0,"per_seconds":1}}}',
      '{"caller":{}}',
    ]) {
      const gateway = ServiceProcess.spawn('gateway', { ...system.env, PORT: '0', LIMITS: limits });
      expect(await gateway.exitCode()).toBe(1);
      expect(gateway.stderr).toContain('LIMITS');
      expect(gateway.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
