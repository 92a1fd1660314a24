import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSystem } from '../support/system';

const registrySkills = fileURLToPath(new URL('../fixtures/registry-skills', import.meta.url));

interface Envelope {
  error: {
    code: string;
    message: string;
    recoverable: boolean;
    details?: { path: string; message: string; code?: string }[];
  };
}

/** Spec 002's contract end to end: coercion, error codes, formats, and hostile input. */
describe('the input/output contract (spec 002)', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({
      SKILLS_DIR: registrySkills,
      WORKER_SKILLS: 'coerce_probe,strict_numbers,pattern_probe',
    });
  });
  afterAll(() => system?.stop());

  const rejected = async (skill: string, inputs: unknown) => {
    const answer = await system.client.invoke(skill, inputs);
    expect(answer.status, JSON.stringify(inputs)).toBe(400);
    return (answer.body as unknown as Envelope).error;
  };

  it('coerces the usual LLM mistakes before validation, nested properties included', async () => {
    const { final } = await system.client.run('coerce_probe', {
      count: '42',
      ratio: ' 2.5e1 ',
      flag: 'Yes',
      tags: 'solo',
      nested: { level: '-3', on: '0', ids: '7' },
    });
    expect(final.status).toBe('completed');
    expect(final.output).toEqual({
      received: {
        count: 42,
        ratio: 25,
        flag: true,
        tags: ['solo'],
        nested: { level: -3, on: false, ids: [7] },
      },
    });
    for (const [word, value] of [
      ['true', true],
      ['YES', true],
      ['1', true],
      ['false', false],
      ['no', false],
      ['0', false],
    ] as const) {
      const run = await system.client.run('coerce_probe', { flag: word });
      expect((run.final.output as { received: { flag: boolean } }).received.flag, word).toBe(value);
    }
  });

  it('rejects what cannot be coerced, saying what was sent', async () => {
    const error = await rejected('coerce_probe', { count: '4.5', flag: 'maybe', nested: { level: 'three' } });
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/inputs/count', message: 'must be integer (got string "4.5")' }),
        expect.objectContaining({ path: '/inputs/flag', message: 'must be boolean (got string "maybe")' }),
        expect.objectContaining({
          path: '/inputs/nested/level',
          message: expect.stringContaining('must be integer'),
        }),
      ]),
    );
  });

  it('does not coerce for a skill that turned coercion off', async () => {
    const error = await rejected('strict_numbers', { n: '5' });
    expect(error.details).toEqual([expect.objectContaining({ path: '/inputs/n', code: 'INVALID_INPUT' })]);
    expect((await system.client.run('strict_numbers', { n: 5 })).final.output).toEqual({ n: 5 });
  });

  it('answers MISSING_REQUIRED_PARAM, PARAM_OUT_OF_RANGE and INVALID_INPUT with the spec error shape', async () => {
    const missing = await rejected('strict_numbers', {});
    expect(missing).toMatchObject({
      code: 'MISSING_REQUIRED_PARAM',
      recoverable: true,
      details: [{ path: '/inputs/n', message: 'is required', code: 'MISSING_REQUIRED_PARAM' }],
    });
    const range = await rejected('coerce_probe', { count: 101 });
    expect(range).toMatchObject({
      code: 'PARAM_OUT_OF_RANGE',
      details: [{ path: '/inputs/count', code: 'PARAM_OUT_OF_RANGE' }],
    });
    expect((await rejected('coerce_probe', { count: '-1' })).code).toBe('PARAM_OUT_OF_RANGE');
    const undeclared = await rejected('coerce_probe', { colour: 'red' });
    expect(undeclared).toMatchObject({
      code: 'INVALID_INPUT',
      details: [{ path: '/inputs/colour', message: 'is not a declared property' }],
    });
  });

  it('checks formats', async () => {
    const error = await rejected('coerce_probe', {
      email: 'not-an-email',
      homepage: 'no scheme',
      when: '2024-13-45',
    });
    expect(error.details?.map((detail) => [detail.path, detail.message])).toEqual(
      expect.arrayContaining([
        ['/inputs/email', 'must match format "email"'],
        ['/inputs/homepage', 'must match format "uri"'],
        ['/inputs/when', 'must match format "date-time"'],
      ]),
    );
    const fine = await system.client.run('coerce_probe', {
      email: 'ada@example.com',
      homepage: 'https://example.com/x',
      when: '2024-11-20T08:00:00Z',
    });
    expect(fine.final.status).toBe('completed');
  });

  it('keeps __proto__ and constructor keys as data that pollutes nothing', async () => {
    const body =
      '{"caller":{"id":"t","type":"user"},"skill_id":"coerce_probe","__proto__":{"polluted":"gateway"},' +
      '"inputs":{"extra":{"__proto__":{"polluted":"worker"},"constructor":{"prototype":{"polluted":"worker"}}}}}';
    const answer = await system.client.request<{ execution_id: string }>('/skills/coerce_probe/invoke', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(answer.status).toBe(202);
    const { final } = await system.client.waitForEnd('coerce_probe', answer.body.execution_id);
    expect(final.status).toBe('completed');
    const output = final.output as { received: { extra: Record<string, unknown> }; polluted?: unknown };
    expect(output.polluted).toBeUndefined();
    expect(Object.keys(output.received.extra)).toEqual(['__proto__', 'constructor']);
    const next = await system.client.run('coerce_probe', { count: 1 });
    expect(next.final.output).toEqual({ received: { count: 1 } });
    const descriptor = await system.client.request<Record<string, unknown>>('/skills/coerce_probe');
    expect(descriptor.body.polluted).toBeUndefined();
  });

  it('refuses a body nested deeper than the limit with 400 before validation, and serves on', async () => {
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const body = (inner: string) =>
      `{"caller":{"id":"t","type":"user"},"skill_id":"coerce_probe","inputs":{"extra":{"a":${inner}}}}`;
    const send = (levels: number) =>
      system.client.request<Envelope>('/skills/coerce_probe/invoke', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body(deep(levels)),
      });
    // The body's own three levels plus 61 arrays: exactly the limit of 64.
    expect((await send(61)).status).toBe(202);
    for (const levels of [62, 1000, 600_000]) {
      const answer = await send(levels);
      expect(answer.status, String(levels)).toBe(levels === 600_000 ? 413 : 400);
      if (answer.status === 400) {
        expect(answer.body.error).toMatchObject({
          code: 'INVALID_INPUT',
          message: expect.stringContaining('nested deeper than 64'),
        });
      }
    }
    expect((await system.client.request('/healthz')).status).toBe(200);
  });

  it('validates a pattern that backtracks exponentially in JavaScript in linear time', async () => {
    const hostile = `${'a'.repeat(5000)}!`;
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => system.client.invoke('pattern_probe', { s: hostile })),
    );
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 400, 400]);
    expect((await system.client.request('/healthz')).status).toBe(200);
    // A backtracking engine would need longer than the age of the universe; this is not a timing assertion.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect((await system.client.run('pattern_probe', { s: 'aaaa' })).final.status).toBe('completed');
  });
});
