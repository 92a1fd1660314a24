import { type SkillDescriptor, SkillrunClient, SkillrunError } from '@skillrun/client';
import { describe, expect, it } from 'vitest';
import { descriptorAt } from '../support/client-descriptor';

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A fetch that answers from a script, one entry per call, and records every request. */
function scripted(answers: Array<Response | Error>) {
  const seen: Seen[] = [];
  const fetch = async (input: Parameters<typeof globalThis.fetch>[0], init: RequestInit = {}) => {
    seen.push({
      method: init.method ?? 'GET',
      url: String(input),
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: init.body ? JSON.parse(String(init.body)) : undefined,
    });
    const next = answers.shift();
    if (!next) throw new Error('no more answers scripted');
    if (next instanceof Error) throw next;
    return next;
  };
  return { seen, fetch: fetch as typeof globalThis.fetch };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const accepted = { execution_id: 'e1', status: 'accepted', skill_id: 'x' };

const fast = { retry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 5 } };

describe('the client retries per spec 001, safely', () => {
  it('retries a 503 (Retry-After) and an unreachable endpoint with the same Idempotency-Key', async () => {
    const { seen, fetch } = scripted([
      json(
        503,
        { error: { code: 'SERVICE_UNAVAILABLE', message: 'busy', recoverable: true } },
        { 'retry-after': '0' },
      ),
      new TypeError('fetch failed'),
      json(202, accepted),
    ]);
    const client = new SkillrunClient({ fetch, ...fast });
    const handle = await client.invoke(descriptorAt('http://p.test', { type: 'none' }), { a: 1 });
    expect(handle.executionId).toBe('e1');
    expect(handle.statusUrl).toBe('http://p.test/x/status/e1');
    expect(seen).toHaveLength(3);
    const keys = new Set(seen.map((request) => request.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[0]?.body).toEqual({
      caller: { id: 'skillrun-client', type: 'service' },
      skill_id: 'x',
      inputs: { a: 1 },
    });
  });

  it("stops at the timeout answer's max_attempts, and never retries a refusal", async () => {
    const timeout = {
      code: 'EXECUTION_TIMEOUT',
      message: 'slow',
      retry: { suggested_delay_ms: 1, max_attempts: 2 },
    };
    const { seen, fetch } = scripted([json(504, { error: timeout }), json(504, { error: timeout })]);
    const client = new SkillrunClient({ fetch, ...fast, retry: { ...fast.retry, maxAttempts: 5 } });
    const failure = await client.invoke(descriptorAt('http://p.test', { type: 'none' }), {}).catch((e) => e);
    expect(failure).toBeInstanceOf(SkillrunError);
    expect(failure).toMatchObject({ code: 'EXECUTION_TIMEOUT', httpStatus: 504, retry: timeout.retry });
    expect(seen).toHaveLength(2);

    const refused = scripted([
      json(400, { error: { code: 'INVALID_INPUT', message: 'no', recoverable: false } }),
    ]);
    const strict = new SkillrunClient({ fetch: refused.fetch, ...fast });
    await expect(strict.invoke(descriptorAt('http://p.test', { type: 'none' }), {})).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      httpStatus: 400,
      recoverable: false,
    });
    expect(refused.seen).toHaveLength(1);
  });

  it('gives up on an unreachable endpoint with ENDPOINT_UNREACHABLE after maxAttempts', async () => {
    const { seen, fetch } = scripted([new TypeError('a'), new TypeError('b'), new TypeError('c')]);
    const client = new SkillrunClient({ fetch, ...fast });
    await expect(client.invoke(descriptorAt('http://p.test', { type: 'none' }), {})).rejects.toMatchObject({
      code: 'ENDPOINT_UNREACHABLE',
      recoverable: true,
    });
    expect(seen).toHaveLength(3);
  });

  it('aborts a backoff at once with the signal’s reason', async () => {
    const { seen, fetch } = scripted([json(503, {}, { 'retry-after': '1' })]);
    const client = new SkillrunClient({
      fetch,
      retry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 60_000 },
    });
    const controller = new AbortController();
    const invoking = client.invoke(
      descriptorAt('http://p.test', { type: 'none' }),
      {},
      { signal: controller.signal },
    );
    await expect.poll(() => seen.length).toBe(1);
    controller.abort(new Error('user gave up'));
    await expect(invoking).rejects.toThrow('user gave up');
  });

  it('gives the error back at once when Retry-After asks for longer than retry.maxDelayMs', async () => {
    const busy = { code: 'RATE_LIMIT_EXCEEDED', message: 'later', recoverable: true };
    const { seen, fetch } = scripted([json(429, { error: busy }, { 'retry-after': '3600' })]);
    const client = new SkillrunClient({ fetch, ...fast });
    await expect(client.invoke(descriptorAt('http://p.test', { type: 'none' }), {})).rejects.toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      httpStatus: 429,
    });
    expect(seen).toHaveLength(1);
  });
});

describe('the client sends the credentials the descriptor’s auth names, where they belong', () => {
  const run = async (
    options: ConstructorParameters<typeof SkillrunClient>[0],
    descriptor: SkillDescriptor,
  ) => {
    const { seen, fetch } = scripted([json(202, accepted)]);
    await new SkillrunClient({ ...options, fetch }).invoke(descriptor, {});
    return seen[0]?.headers ?? {};
  };

  it('puts an api_key in the header auth names, and a token in Authorization', async () => {
    const headers = await run(
      { apiKey: 'k1', bearerToken: 't1' },
      descriptorAt('http://p.test', { type: 'api_key', header: 'X-Provider-Key' }),
    );
    expect(headers['x-provider-key']).toBe('k1');
    expect(headers.authorization).toBe('Bearer t1');
    expect(headers['x-api-key']).toBeUndefined();
  });

  it('sends nothing for auth none, except to its own service, and keeps each provider’s key to it', async () => {
    expect(await run({ apiKey: 'k1' }, descriptorAt('http://p.test', { type: 'none' }))).not.toHaveProperty(
      'x-api-key',
    );
    const own = await run(
      { apiKey: 'k1', baseUrl: 'http://p.test/', caller: { id: 'me', type: 'user' } },
      descriptorAt('http://p.test', { type: 'none' }),
    );
    expect(own['x-api-key']).toBe('k1');
    const elsewhere = await run(
      { apiKey: 'ours', baseUrl: 'http://us.test', providers: { 'http://p.test': { apiKey: 'theirs' } } },
      descriptorAt('http://p.test', { type: 'api_key' }),
    );
    expect(elsewhere['x-api-key']).toBe('theirs');
    const stranger = await run(
      { apiKey: 'ours', baseUrl: 'http://us.test' },
      descriptorAt('http://p.test', { type: 'api_key' }),
    );
    expect(stranger['x-api-key']).toBeUndefined();
  });

  it('names the caller GET /me says, asked once, when credentials for the service come without one', async () => {
    const { seen, fetch } = scripted([
      json(200, { caller_id: 'svc-7', scopes: ['skill:invoke'], method: 'api_key' }),
      json(202, accepted),
      json(202, accepted),
    ]);
    const client = new SkillrunClient({ apiKey: 'k1', baseUrl: 'http://p.test', fetch });
    const descriptor = descriptorAt('http://p.test', { type: 'api_key' });
    await client.invoke(descriptor, {});
    await client.invoke(descriptor, {});
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET http://p.test/me',
      'POST http://p.test/x/invoke',
      'POST http://p.test/x/invoke',
    ]);
    expect(seen[0]?.headers['x-api-key']).toBe('k1');
    expect(seen[2]?.body).toMatchObject({ caller: { id: 'svc-7', type: 'service' } });
  });

  it('takes the origin the service advertises for itself as its own, and says once when it keeps credentials from another', async () => {
    const advertised = { link: '<http://localhost:3000/openapi.json>; rel="service-desc"' };
    const stranger = { link: '<http://p.test/openapi.json>; rel="service-desc"' };
    const { seen, fetch } = scripted([
      json(200, descriptorAt('http://localhost:3000', { type: 'api_key' }), advertised),
      json(200, { caller_id: 'svc-7', scopes: ['skill:invoke'], method: 'api_key' }, advertised),
      json(202, accepted, advertised),
      json(202, accepted, stranger),
      json(202, accepted, stranger),
    ]);
    const withheld: string[] = [];
    const client = new SkillrunClient({
      apiKey: 'k1',
      baseUrl: 'http://127.0.0.1:3000',
      fetch,
      onCredentialsWithheld: (origin) => withheld.push(origin),
    });
    await client.invoke('x', {});
    const elsewhere = descriptorAt('http://p.test', { type: 'api_key' });
    await client.invoke(elsewhere, {});
    await client.invoke(elsewhere, {});
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET http://127.0.0.1:3000/skills/x',
      'GET http://127.0.0.1:3000/me',
      'POST http://localhost:3000/x/invoke',
      'POST http://p.test/x/invoke',
      'POST http://p.test/x/invoke',
    ]);
    expect(seen[2]?.headers['x-api-key']).toBe('k1');
    expect(seen[2]?.body).toMatchObject({ caller: { id: 'svc-7' } });
    // Another provider's answer naming itself is not believed: only the service says where it is.
    expect(seen.slice(3).map((request) => request.headers['x-api-key'])).toEqual([undefined, undefined]);
    expect(withheld).toEqual(['http://p.test']);
  });
});

describe('flow control in the client', () => {
  it('sends concurrency_key and debounce in the context, and says when a call was debounced', async () => {
    const { seen, fetch } = scripted([json(202, accepted), json(202, accepted, { debounced: 'true' })]);
    const client = new SkillrunClient({ ...fast, fetch });
    const descriptor = descriptorAt('http://p.test', { type: 'none' });
    const context = { concurrency_key: 'customer-7', debounce: { key: 'edits', delay_ms: 500 } };
    const first = await client.invoke(descriptor, {}, { context });
    const second = await client.invoke(descriptor, {}, { context });
    expect(seen.map((request) => (request.body as { context?: unknown }).context)).toEqual([
      context,
      context,
    ]);
    expect([first.debounced, second.debounced]).toEqual([undefined, true]);
  });
});

describe("the client's operator controls", () => {
  it('pauses and resumes a skill, and cancels what a filter finds, with the service key', async () => {
    const { seen, fetch } = scripted([
      json(200, { skill_id: 'x', paused: true, paused_at: '2030-01-01T00:00:00.000Z', paused_by: 'ops' }),
      json(503, { error: { code: 'SERVICE_UNAVAILABLE', message: 'Redis' } }, { 'retry-after': '0' }),
      json(200, { skill_id: 'x', paused: false }),
      json(200, { canceled: 3, next_cursor: 'c2' }),
    ]);
    const client = new SkillrunClient({ apiKey: 'k1', baseUrl: 'http://127.0.0.1:3000', fetch, ...fast });
    expect(await client.pauseSkill('x')).toMatchObject({ paused: true, paused_by: 'ops' });
    // Both are idempotent: one that may not have been served is sent again.
    expect(await client.resumeSkill('x')).toEqual({ skill_id: 'x', paused: false });
    expect(
      await client.cancelExecutions({ skill_id: 'x', status: ['accepted', 'running'], limit: 500 }),
    ).toEqual({
      canceled: 3,
      next_cursor: 'c2',
    });
    expect(seen.map((request) => `${request.method} ${request.url} ${request.headers['x-api-key']}`)).toEqual(
      [
        'POST http://127.0.0.1:3000/skills/x/pause k1',
        'POST http://127.0.0.1:3000/skills/x/resume k1',
        'POST http://127.0.0.1:3000/skills/x/resume k1',
        'POST http://127.0.0.1:3000/executions/cancel k1',
      ],
    );
    expect(seen[3]?.body).toEqual({ skill_id: 'x', status: 'accepted,running', limit: 500 });
  });
});

describe("the client's history filter", () => {
  it('sends tags comma-separated and each metadata value as metadata.<key>', async () => {
    const { seen, fetch } = scripted([
      json(200, { executions: [], next_cursor: null }),
      json(200, { canceled: 0, next_cursor: null }),
    ]);
    const client = new SkillrunClient({ apiKey: 'k1', baseUrl: 'http://127.0.0.1:3000', fetch, ...fast });
    const filter = {
      tag: ['customer:42', 'env/prod'],
      tag_match: 'any' as const,
      metadata: { order: 'A-7' },
    };
    await client.executions(filter);
    await client.cancelExecutions(filter);
    const query = new URL(seen[0]?.url ?? '').searchParams;
    expect([query.get('tag'), query.get('tag_match'), query.get('metadata.order')]).toEqual([
      'customer:42,env/prod',
      'any',
      'A-7',
    ]);
    expect(seen[1]?.body).toEqual({ tag: 'customer:42,env/prod', tag_match: 'any', 'metadata.order': 'A-7' });
  });
});
