import { SkillError, toErrorBody } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const FALLBACK = 'TOOL_EXECUTION_FAILED';

/** Every key of a JSON value, at any depth. */
function keysDeep(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysDeep);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, inner]) => [key, ...keysDeep(inner)]);
  return [];
}

/** The body as it travels: what JSON.parse(JSON.stringify(body)) gives back. */
function roundTrip(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body));
}

describe('toErrorBody', () => {
  it('turns a plain Error into a body with the fallback code and its message', () => {
    const body = toErrorBody(new Error('disk on fire'), FALLBACK);
    expect(body).toEqual({ code: FALLBACK, message: 'disk on fire', recoverable: true });
  });

  it('keeps the code, details, suggested action and retry of a SkillError', () => {
    const error = new SkillError('SEARCH_API_ERROR', 'search backend said 503', {
      details: { upstream: 'search', status: 503 },
      suggestedAction: 'Try again in a minute.',
      retry: { suggested_delay_ms: 2000, max_attempts: 3 },
    });
    expect(toErrorBody(error, FALLBACK)).toEqual({
      code: 'SEARCH_API_ERROR',
      message: 'search backend said 503',
      recoverable: true,
      details: { upstream: 'search', status: 503 },
      suggested_action: 'Try again in a minute.',
      retry: { suggested_delay_ms: 2000, max_attempts: 3 },
    });
  });

  it('preserves recoverable: false from a SkillError and from a plain object', () => {
    expect(
      toErrorBody(new SkillError('TOOL_EXECUTION_FAILED', 'no', { recoverable: false }), FALLBACK)
        .recoverable,
    ).toBe(false);
    expect(toErrorBody({ code: 'CUSTOM_FAILURE', message: 'no', recoverable: false }, FALLBACK)).toEqual({
      code: 'CUSTOM_FAILURE',
      message: 'no',
      recoverable: false,
    });
  });

  it('takes code, message, details and suggested_action from a plain object', () => {
    const body = toErrorBody(
      {
        code: 'FETCH_FAILED',
        message: 'GET failed',
        details: { url: 'https://x.test' },
        suggested_action: 'Check',
      },
      FALLBACK,
    );
    expect(body).toEqual({
      code: 'FETCH_FAILED',
      message: 'GET failed',
      recoverable: true,
      details: { url: 'https://x.test' },
      suggested_action: 'Check',
    });
  });

  it('turns a thrown string (and other primitives) into the message', () => {
    expect(toErrorBody('it broke', FALLBACK)).toEqual({
      code: FALLBACK,
      message: 'it broke',
      recoverable: true,
    });
    expect(toErrorBody(42, FALLBACK).message).toBe('42');
    expect(toErrorBody(undefined, FALLBACK).message).toBe('undefined');
    expect(toErrorBody(null, FALLBACK).code).toBe(FALLBACK);
  });

  it('never leaves the message empty', () => {
    expect(toErrorBody('', FALLBACK).message).toBe('Unknown error');
    expect(toErrorBody(new Error(''), FALLBACK).message).toBe('Unknown error');
  });

  it('survives an object that cannot be turned into a string', () => {
    const thrown = Object.create(null) as Record<string, unknown>;
    thrown.code = 'ODD_THING';
    const body = toErrorBody(thrown, FALLBACK);
    expect(body.code).toBe('ODD_THING');
    expect(typeof body.message).toBe('string');
    expect(body.message.length).toBeGreaterThan(0);
  });

  it('truncates a long message to 1000 characters', () => {
    const long = 'a'.repeat(5000);
    for (const thrown of [new Error(long), new SkillError('INTERNAL_ERROR', long), long, { message: long }]) {
      const body = toErrorBody(thrown, FALLBACK);
      expect(body.message.length).toBe(1000);
      expect(long.startsWith(body.message.slice(0, -1))).toBe(true);
    }
    const exact = 'b'.repeat(1000);
    expect(toErrorBody(exact, FALLBACK).message).toBe(exact);
  });

  it('truncates a long suggested action to 1000 characters', () => {
    const error = new SkillError('INTERNAL_ERROR', 'x', { suggestedAction: 's'.repeat(3000) });
    expect(toErrorBody(error, FALLBACK).suggested_action?.length).toBe(1000);
  });

  it('has no stack field anywhere, even when errors are nested in the details', () => {
    const cause = new Error('inner');
    // Like the errors of some HTTP clients, whose toJSON includes the stack.
    const libraryError = new Error('http failed');
    const withToJson = Object.assign(libraryError, {
      toJSON: () => ({
        message: libraryError.message,
        name: libraryError.name,
        stack: libraryError.stack,
        status: 502,
      }),
    });
    const thrownObject = { code: 'FETCH_FAILED', message: 'm', stack: 'Error: m\n    at x.js:1:1' };
    const inputs: unknown[] = [
      new Error('top'),
      Object.assign(new Error('with props'), { details: { cause } }),
      new SkillError('TOOL_EXECUTION_FAILED', 'wrapped', { details: { cause, list: [cause] } }),
      new SkillError('FETCH_FAILED', 'library error', { details: { error: withToJson } }),
      thrownObject,
      new AggregateError([cause], 'many'),
    ];
    for (const thrown of inputs) {
      const body = roundTrip(toErrorBody(thrown, FALLBACK));
      expect(keysDeep(body)).not.toContain('stack');
      expect(JSON.stringify(body)).not.toMatch(/\n\s+at /);
    }
    // What the library error's toJSON said besides its stack is kept.
    const kept = toErrorBody(
      new SkillError('FETCH_FAILED', 'x', { details: { error: withToJson } }),
      FALLBACK,
    );
    expect(kept.details).toEqual({ error: { message: 'http failed', name: 'Error', status: 502 } });
  });

  it('replaces invalid codes with the fallback code', () => {
    for (const code of [
      'lowercase_code',
      'HAS SPACE',
      'X',
      '1STARTS_WITH_DIGIT',
      'DASH-ED',
      '',
      `A${'B'.repeat(80)}`,
    ]) {
      expect(toErrorBody(new SkillError(code, 'm'), FALLBACK).code).toBe(FALLBACK);
      expect(toErrorBody({ code, message: 'm' }, FALLBACK).code).toBe(FALLBACK);
    }
    expect(toErrorBody({ code: 42, message: 'm' }, FALLBACK).code).toBe(FALLBACK);
  });

  it('keeps a well-formed custom code that is not in the catalogue', () => {
    expect(toErrorBody(new SkillError('QUOTA_GONE_2', 'm'), FALLBACK).code).toBe('QUOTA_GONE_2');
  });

  it('truncates huge details to a bounded string', () => {
    const details = { rows: Array.from({ length: 5000 }, (_, i) => ({ i, text: 'lorem ipsum' })) };
    const body = toErrorBody(new SkillError('PARTIAL_SUCCESS', 'too much', { details }), FALLBACK);
    const truncated = (body.details as { truncated?: unknown }).truncated;
    expect(typeof truncated).toBe('string');
    expect((truncated as string).length).toBeLessThanOrEqual(8000);
    expect(JSON.stringify(body).length).toBeLessThan(12_000);
  });

  it('keeps small details as plain JSON (a copy, not the same object)', () => {
    const details = { when: new Date('2024-01-02T03:04:05.000Z'), n: 1 };
    const body = toErrorBody(new SkillError('INTERNAL_ERROR', 'x', { details }), FALLBACK);
    expect(body.details).toEqual({ when: '2024-01-02T03:04:05.000Z', n: 1 });
    expect(body.details).not.toBe(details);
  });

  it('drops details that cannot be serialised (BigInt, cycles) but keeps the rest of the body', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    for (const details of [{ big: 10n }, cyclic, 10n]) {
      const body = toErrorBody(new SkillError('TOOL_EXECUTION_FAILED', 'bad details', { details }), FALLBACK);
      expect(body).toEqual({ code: 'TOOL_EXECUTION_FAILED', message: 'bad details', recoverable: true });
      expect(() => JSON.stringify(body)).not.toThrow();
    }
    const fromObject = toErrorBody({ code: 'FETCH_FAILED', message: 'm', details: cyclic }, FALLBACK);
    expect(fromObject).not.toHaveProperty('details');
  });
});
