import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSystem } from '../support/system';

// Fault suite 3: a flood with one request in ten malformed, in every way a client gets it wrong.

const TOTAL = 20_000;
const CONNECTIONS = 50;
const BODY_LIMIT_BYTES = 65_536;

interface Shot {
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  good: boolean;
}

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** A request to `path` (invoke by default) with this body and content type. */
const send = (body: string, contentType = 'application/json', path = '/skills/echo/invoke') => ({
  path,
  method: 'POST',
  headers: { 'content-type': contentType },
  body,
});
const invocation = (skillId: string, inputs: unknown) =>
  JSON.stringify({ caller: { id: 'flood', type: 'service' }, skill_id: skillId, inputs });

const good = (i: number): Shot => ({ ...send(invocation('echo', { text: `n${i}` })), good: true });

/** The malformed requests, in turn. */
const BAD: ((i: number) => Omit<Shot, 'good'>)[] = [
  () => send('{"caller":'),
  () => send(invocation('echo', { text: 42, count: 'x' })),
  () => send('hello', 'text/plain'),
  () => send(JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT_BYTES * 2) })),
  () => send(nested(5000)),
  (i) => send(invocation(`no_such_skill_${i}`, {}), 'application/json', `/skills/no_such_skill_${i}/invoke`),
  (i) => ({
    path: `/skills/echo/status/00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    method: 'GET',
    headers: {},
  }),
  () => ({ path: '/skills/echo/status/%E0%A4%A', method: 'GET', headers: {} }),
  () => send('[]'),
  () => send('null'),
];

describe('fault suite: a flood of 20,000 requests, one in ten malformed', () => {
  let system: TestSystem;
  let redis: Redis;

  beforeAll(async () => {
    system = await TestSystem.start({ BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) });
    await system.addWorker({ WORKER_SKILLS: 'echo' });
    redis = new Redis(system.redis.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await system?.stop();
  });

  it('answers no 5xx: every bad request a 4xx in the error envelope, every good one accepted and completed', async () => {
    const shots: Shot[] = Array.from({ length: TOTAL }, (_, i) =>
      i % 10 === 9 ? { ...(BAD[((i / 10) % BAD.length) | 0]?.(i) ?? good(i)), good: false } : good(i),
    );
    const statuses = new Map<number, number>();
    const accepted: string[] = [];
    const wrongBad: string[] = [];
    let next = 0;
    const started = performance.now();
    const fire = async () => {
      while (next < shots.length) {
        const shot = shots[next++] as Shot;
        const answer = await fetch(`${system.gateway.url}${shot.path}`, {
          method: shot.method,
          headers: shot.headers,
          ...(shot.body === undefined ? {} : { body: shot.body }),
        });
        const text = await answer.text();
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (shot.good && answer.status === 202) accepted.push(String(JSON.parse(text).execution_id));
        if (!shot.good) {
          const envelope = (() => {
            try {
              return JSON.parse(text) as { error?: { code?: unknown } };
            } catch {
              return {};
            }
          })();
          if (answer.status < 400 || answer.status >= 500 || typeof envelope.error?.code !== 'string') {
            wrongBad.push(
              `${shot.method} ${shot.path.slice(0, 60)} -> ${answer.status} ${text.slice(0, 80)}`,
            );
          }
        }
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, fire));
    const seconds = (performance.now() - started) / 1000;
    const serverErrors = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
    console.log(
      `fault 3: ${TOTAL} requests in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries(statuses))}; 5xx ${serverErrors}`,
    );
    expect(serverErrors).toBe(0);
    expect(wrongBad).toEqual([]);
    expect(accepted).toHaveLength(TOTAL - TOTAL / 10);

    // Every accepted one completes: read the records' statuses in bulk rather than 18,000 GETs.
    await expect
      .poll(
        async () => {
          const pipeline = redis.pipeline();
          for (const id of accepted) pipeline.hget(`{skillrun}:exec:${id}`, 'status');
          const replies = (await pipeline.exec()) ?? [];
          return replies.filter(([, status]) => status === 'completed').length;
        },
        { timeout: 120_000, interval: 1000 },
      )
      .toBe(accepted.length);
  }, 300_000);
});
