import type { Execution } from '@skillrun/core';
import { RedisKeys } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, Client } from '../support/client';
import { ADMIN_HEADERS, type StartedGateway } from '../support/service-process';
import { TestSystem } from '../support/system';

type Envelope = { error: { code: string; recoverable: boolean } };

/** The gateways' MAX_WAIT_SECONDS: longer than any execution here takes on a busy machine. */
const MAX_WAIT_SECONDS = 30;
const keys = new RedisKeys('{skillrun}');
const FINAL = ['completed', 'failed', 'timeout'];

describe('GET status and result wait for the execution to change (Prefer: wait, ?wait=)', () => {
  let system: TestSystem;
  let replica: StartedGateway;
  let redis: Redis;
  let client: Client;

  beforeAll(async () => {
    system = await TestSystem.start({ MAX_WAIT_SECONDS: String(MAX_WAIT_SECONDS) });
    [replica] = await Promise.all([system.addGateway(), system.addWorker({ WORKER_SKILLS: 'sleepy,echo' })]);
    redis = new Redis(system.redis.url);
    client = system.client;
  });
  afterAll(async () => {
    redis?.disconnect();
    await system?.stop();
  });

  const path = (step: 'status' | 'result', id: string, query = '') => `/skills/sleepy/${step}/${id}${query}`;
  const waiting = (seconds: number | string) => ({ headers: { prefer: `wait=${seconds}` } });

  async function sleepy(ms: number, headers: Record<string, string> = {}, extra = {}): Promise<string> {
    const accepted = await client.invoke('sleepy', { ms }, extra, headers);
    expect(accepted.status).toBe(202);
    return String(accepted.body.execution_id);
  }

  /** A sleepy that a worker has started (running is not announced, so waits begin from there). */
  async function running(ms: number): Promise<string> {
    const id = await sleepy(ms);
    await expect
      .poll(async () => (await client.status('sleepy', id)).status, { timeout: 20_000 })
      .toBe('running');
    return id;
  }

  /** The answer, and the seconds it took. */
  async function timed<T>(ask: () => Promise<Answer<T>>): Promise<Answer<T> & { seconds: number }> {
    const started = performance.now();
    const answer = await ask();
    return { ...answer, seconds: (performance.now() - started) / 1000 };
  }

  /** The watchers (one per gateway) an execution's record has its changes announced to. */
  async function watchersOf(id: string): Promise<number> {
    const watched = await redis.hget(keys.execution(id), 'watched');
    return watched === null ? 0 : watched.split(' ').length;
  }

  /** The requests a gateway holds open waiting, as its metrics say. */
  async function held(url: string): Promise<number> {
    const text = await (await fetch(`${url}/metrics`)).text();
    return Number(/^skillrun_waiting_requests (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
  }

  /** The channels gateways listen on for changes: one per gateway, however many requests wait. */
  async function inboxes(): Promise<number> {
    return ((await redis.call('PUBSUB', 'CHANNELS', `${keys.watcherInboxes()}*`)) as string[]).length;
  }

  it('answers a waiting GET status the moment the execution completes, with its output', async () => {
    const id = await running(800);
    const answer = await timed(() =>
      client.request<Execution>(path('status', id), waiting(MAX_WAIT_SECONDS)),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ execution_id: id, status: 'completed' });
    // Its own output: it slept (a timer may fire a millisecond early by Date.now's clock).
    expect((answer.body.output as { slept_ms: number }).slept_ms).toBeGreaterThanOrEqual(790);
    expect(answer.headers.get('preference-applied')).toBe(`wait=${MAX_WAIT_SECONDS}`);
    expect(answer.headers.get('retry-after')).toBeNull();
    expect(answer.headers.get('retry-after-ms')).toBeNull();
    // Woken by the end, not by the wait running out.
    expect(answer.seconds).toBeLessThan(MAX_WAIT_SECONDS - 10);
  });

  it('announces the changes of executions someone waits for, and costs the others no PUBLISH', async () => {
    const listener = new Redis(system.redis.url);
    const announced: string[] = [];
    // Each announcement starts with its execution's id.
    listener.on('pmessage', (_pattern: string, _channel: string, message: string) =>
      announced.push(message.split('\n')[0] ?? ''),
    );
    await listener.psubscribe(`${keys.watcherInboxes()}*`);
    try {
      const unwatched = await sleepy(10);
      await expect.poll(async () => (await client.status('sleepy', unwatched)).status).toBe('completed');
      // Long enough that the wait surely begins before it ends, on a loaded machine too.
      const watched = await running(3000);
      const answer = await client.request<Execution>(path('result', watched), waiting(MAX_WAIT_SECONDS));
      expect(answer.body.status).toBe('completed');
      await expect.poll(() => announced).toContain(watched);
      expect(announced).not.toContain(unwatched);
    } finally {
      listener.disconnect();
    }
  });

  it('answers a waiting GET result with the outcome, even when it began before the execution started', async () => {
    const id = await sleepy(800);
    const answer = await timed(() =>
      client.request<Execution>(path('result', id), waiting(MAX_WAIT_SECONDS)),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'completed', output: { slept_ms: expect.any(Number) } });
    expect(answer.seconds).toBeLessThan(MAX_WAIT_SECONDS - 10);
  });

  it('takes ?wait=N the same way', async () => {
    const id = await sleepy(800);
    const answer = await client.request<Execution>(path('result', id, `?wait=${MAX_WAIT_SECONDS}`));
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('completed');
    expect(answer.headers.get('preference-applied')).toBe(`wait=${MAX_WAIT_SECONDS}`);
  });

  it('answers the unfinished execution, 200 with Retry-After, when the wait runs out first', async () => {
    const id = await running(4000);
    for (const ask of [
      () => client.request<Execution>(path('status', id), waiting(1)),
      () => client.request<Execution>(path('result', id, '?wait=1')),
    ]) {
      const answer = await timed(ask);
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe('running');
      expect(answer.headers.get('preference-applied')).toBe('wait=1');
      expect(answer.headers.get('retry-after')).toBe('1');
      // The sub-second hint beside it: a tenth of the execution's age, at least 100 ms.
      const age = Date.now() - Date.parse(answer.body.timestamps.created_at);
      const hint = Number(answer.headers.get('retry-after-ms'));
      expect(hint).toBeGreaterThanOrEqual(100);
      expect(Math.abs(hint - Math.min(1000, Math.max(100, age / 10)))).toBeLessThan(20);
      expect(answer.seconds).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('answers a finished execution at once, the wait capped at MAX_WAIT_SECONDS', async () => {
    const { final } = await client.run('sleepy', { ms: 1 });
    const answer = await timed(() =>
      client.request<Execution>(path('status', final.execution_id), waiting(3600)),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(final);
    expect(answer.headers.get('preference-applied')).toBe(`wait=${MAX_WAIT_SECONDS}`);
    expect(answer.seconds).toBeLessThan(MAX_WAIT_SECONDS - 10);
  });

  it('answers 400 in the envelope for a ?wait= that is not a whole number of seconds up to 3600', async () => {
    const { final } = await client.run('sleepy', { ms: 1 });
    for (const query of [
      '?wait=abc',
      '?wait=-1',
      '?wait=1.5',
      '?wait=',
      '?wait=3601',
      '?wait=1e30',
      '?wait=1&wait=2',
    ]) {
      const answer = await client.request<Envelope>(path('status', final.execution_id, query));
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.code, query).toBe('INVALID_INPUT');
    }
  });

  it('ignores a Prefer header it does not understand (RFC 7240) and answers at once', async () => {
    const id = await running(4000);
    for (const prefer of [
      'wait=abc',
      'wait=-1',
      'wait=1.5',
      'wait=3601',
      'wait',
      'respond-async',
      'handling=lenient',
    ]) {
      const answer = await client.request<Execution>(path('status', id), { headers: { prefer } });
      expect(answer.status, prefer).toBe(200);
      expect(FINAL, prefer).not.toContain(answer.body.status);
      expect(answer.headers.get('preference-applied'), prefer).toBeNull();
    }
    const listed = await client.request<Execution>(path('result', id), {
      headers: { prefer: 'respond-async, WAIT="30"; foo=bar, wait=1' },
    });
    expect(listed.body.status).toBe('completed');
    expect(listed.headers.get('preference-applied')).toBe('wait=30');
  });

  it('wakes a request waiting on another gateway: the change comes from Redis', async () => {
    const id = await sleepy(800);
    const other = new Client(replica.url);
    const answer = await other.request<Execution>(path('result', id), waiting(MAX_WAIT_SECONDS));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ execution_id: id, status: 'completed' });
  });

  it('keeps watching for the requests that stay when another leaves, and leaves no watch behind', async () => {
    const id = await running(4000);
    const gone = new AbortController();
    const abandoned = client.request(path('status', id), {
      ...waiting(MAX_WAIT_SECONDS),
      signal: gone.signal,
    });
    const staying = client.request<Execution>(path('result', id), waiting(MAX_WAIT_SECONDS));
    const elsewhere = new Client(replica.url).request<Execution>(
      path('result', id),
      waiting(MAX_WAIT_SECONDS),
    );
    await expect.poll(() => watchersOf(id), { timeout: 10_000 }).toBe(2);
    await expect.poll(() => held(system.gateway.url), { timeout: 10_000 }).toBe(2);
    // Three waits, two gateways: one channel each, no subscription per execution or request.
    expect(await inboxes()).toBe(2);
    gone.abort();
    await expect(abandoned).rejects.toThrow();
    // The request that stays still learns of the end.
    for (const answer of await Promise.all([staying, elsewhere])) {
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe('completed');
    }
    await expect.poll(() => held(system.gateway.url), { timeout: 10_000 }).toBe(0);
    expect(await held(replica.url)).toBe(0);
  });

  it('lets go of the wait when the client goes away mid-wait', async () => {
    const id = await running(4000);
    const gone = new AbortController();
    const abandoned = client.request(path('status', id), {
      ...waiting(MAX_WAIT_SECONDS),
      signal: gone.signal,
    });
    await expect.poll(() => held(system.gateway.url), { timeout: 10_000 }).toBe(1);
    gone.abort();
    await expect(abandoned).rejects.toThrow();
    await expect.poll(() => held(system.gateway.url), { timeout: 10_000 }).toBe(0);
    // Left because the client went away, not because the execution ended.
    expect((await client.status('sleepy', id)).status).toBe('running');
    expect(system.gateway.process.logs.filter((line) => (line.level ?? 0) >= 50)).toEqual([]);
  });

  it('answers a POST invoke with Prefer: wait once the execution ends, in that one round trip', async () => {
    const done = await timed(() => client.invoke('sleepy', { ms: 300 }, {}, { prefer: 'wait=20' }));
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', output: { slept_ms: expect.any(Number) } });
    expect(done.headers.get('preference-applied')).toBe('wait=20');
    expect(done.headers.get('location')).toMatch(
      new RegExp(`/skills/sleepy/status/${String(done.body.execution_id)}$`),
    );
    expect(done.seconds).toBeGreaterThanOrEqual(0.3);
    // A failure is answered the same way: its status names it (the invocation itself was accepted).
    const failed = await client.invoke(
      'sleepy',
      { ms: 5000 },
      { context: { timeout_ms: 200 } },
      { prefer: 'wait=20' },
    );
    expect([failed.status, failed.body.status]).toEqual([200, 'timeout']);
  });

  it('wakes a POST invoke of an instant skill with its end, however soon it comes (none waits out its wait)', async () => {
    // The invoking request watches the execution from before it exists: an end announced before
    // the request starts to wait is not missed. Missed, the request would answer only after 20 s.
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        timed(() => client.invoke('echo', { text: `instant ${n}` }, {}, { prefer: 'wait=20' })),
      ),
    );
    for (const answer of answers) {
      expect([answer.status, answer.body.status, answer.body.output]).toEqual([
        200,
        'completed',
        expect.objectContaining({ text: expect.stringMatching(/^instant \d+$/) }),
      ]);
      expect(answer.seconds).toBeLessThan(10);
    }
    // Every watch released: none is left behind.
    await expect.poll(() => held(system.gateway.url), { timeout: 10_000 }).toBe(0);
  });

  it('answers a waited end as GET status reads it afterwards, output or error kept apart included', async () => {
    // The end's announcement carries the record, which answers the waits without reading Redis:
    // what they answer must be what a read finds.
    const status = (skill: string, id: unknown) => client.request(`/skills/${skill}/status/${String(id)}`);
    const long = await client.invoke('echo', { text: 'x'.repeat(50), count: 2 }, {}, { prefer: 'wait=20' });
    expect([long.status, long.body.output]).toMatchObject([200, { text: 'x'.repeat(100), count: 2 }]);
    expect(long.body).toEqual((await status('echo', long.body.execution_id)).body);
    const timedOut = await client.invoke(
      'sleepy',
      { ms: 5000 },
      { context: { timeout_ms: 200 } },
      { prefer: 'wait=20' },
    );
    expect(timedOut.body).toMatchObject({ status: 'timeout', error: { code: 'EXECUTION_TIMEOUT' } });
    expect(timedOut.body).toEqual((await status('sleepy', timedOut.body.execution_id)).body);
    const id = await running(400);
    const ended = await client.request(path('status', id), waiting(20));
    expect(ended.body).toMatchObject({ status: 'completed', output: { slept_ms: expect.any(Number) } });
    expect(ended.body).toEqual((await status('sleepy', id)).body);
  });

  it('answers a POST invoke 202 as usual when the wait runs out first, and at once without Prefer', async () => {
    const pending = await timed(() => client.invoke('sleepy', { ms: 4000 }, {}, { prefer: 'wait=1' }));
    expect(pending.status).toBe(202);
    expect(pending.body).toMatchObject({ status: 'accepted', skill_id: 'sleepy' });
    expect(pending.headers.get('preference-applied')).toBe('wait=1');
    expect(pending.seconds).toBeGreaterThanOrEqual(1);
    expect(pending.seconds).toBeLessThan(4);
    const plain = await client.invoke('sleepy', { ms: 300 });
    expect(plain.status).toBe(202);
    expect(plain.headers.get('preference-applied')).toBeNull();
    // One that makes a webhook answers its 202 at once: the webhook's secret is shown there only.
    const hooked = await client.invoke(
      'sleepy',
      { ms: 300 },
      { webhook: { url: 'https://hooks.example.com/skillrun' } },
      { prefer: 'wait=20' },
    );
    expect(hooked.status).toBe(202);
    expect(hooked.body).toMatchObject({ status: 'accepted', webhook: { secret: expect.any(String) } });
    // A refused invocation is refused at once, whatever it prefers.
    const refused = await client.invoke('sleepy', { ms: -1 }, {}, { prefer: 'wait=20' });
    expect(refused.status).toBe(400);
  });

  it("answers 404 for another caller's execution, waiting or not", async () => {
    const created = await Promise.all(
      ['alice', 'bob'].map((caller) =>
        client.request<{ key: string }>('/admin/keys', {
          json: { caller_id: caller, scopes: ['skill:invoke', 'skill:read'] },
          headers: ADMIN_HEADERS,
        }),
      ),
    );
    const [alice, bob] = created.map((answer) => ({ 'x-api-key': answer.body.key }));
    const id = await sleepy(800, alice, { caller: { id: 'alice', type: 'user' } });
    for (const headers of [bob, {}]) {
      const answer = await client.request<Envelope>(path('result', id), {
        headers: { ...headers, prefer: `wait=${MAX_WAIT_SECONDS}` },
      });
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('EXECUTION_NOT_FOUND');
    }
    const own = await client.request<Execution>(path('result', id), {
      headers: { ...alice, prefer: `wait=${MAX_WAIT_SECONDS}` },
    });
    expect(own.status).toBe(200);
    expect(own.body.status).toBe('completed');
  });

  // Then: a gateway goes away, and Redis does.
  it('answers its waiting requests at once when a gateway shuts down', async () => {
    const id = await running(4000);
    const other = new Client(replica.url);
    const answer = timed(() => other.request<Execution>(path('status', id), waiting(MAX_WAIT_SECONDS)));
    await expect.poll(() => held(replica.url), { timeout: 10_000 }).toBe(1);
    expect(await replica.process.stop()).toBe(0);
    const { status, body, seconds } = await answer;
    expect(status).toBe(200);
    expect(body.status).toBe('running');
    expect(seconds).toBeLessThan(MAX_WAIT_SECONDS - 10);
  });

  it('answers 503 in the envelope, not after the wait, when Redis goes away during it', async () => {
    const id = await running(4000);
    const answer = timed(() => client.request<Envelope>(path('status', id), waiting(MAX_WAIT_SECONDS)));
    await expect.poll(() => held(system.gateway.url), { timeout: 10_000 }).toBe(1);
    await system.redis.kill();
    const { status, body, seconds } = await answer;
    expect(status).toBe(503);
    expect(body).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', recoverable: true } });
    expect(seconds).toBeLessThan(MAX_WAIT_SECONDS - 10);
    await system.redis.restart();
    await expect.poll(async () => (await client.request('/readyz')).status, { timeout: 15_000 }).toBe(200);
  });
});
