import { Type } from '@sinclair/typebox';
import { compileLinearRegExp, createAjv, SchemaValidator, SkillError, SkillSchemas } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const hostile = `${'a'.repeat(10_000)}!`;

describe('patterns run on a linear-time engine', () => {
  it('validates a catastrophically backtracking pattern against a hostile string (a JS RegExp would hang)', () => {
    const schemas = new SkillSchemas();
    expect(schemas.validate({ type: 'string', pattern: '^(a+)+$' }, hostile).ok).toBe(false);
    expect(schemas.validate({ type: 'string', pattern: '^(a+)+$' }, 'aaaa').ok).toBe(true);
    const keys = { type: 'object', patternProperties: { '^(a|aa)+$': { type: 'integer' } } };
    expect(schemas.validate(keys, { [hostile]: 'x' }).ok).toBe(true);
    expect(schemas.validate(keys, { aaaa: 'x' }).ok).toBe(false);
  });

  it('keeps JSON Schema semantics: unanchored search, Unicode escapes, classes and named groups', () => {
    const matches = (pattern: string, text: string) => compileLinearRegExp(pattern).test(text);
    expect(matches('b', 'abc')).toBe(true);
    expect(matches('^b', 'abc')).toBe(false);
    expect(matches('^\\u00e9$', 'é')).toBe(true);
    expect(matches('^\\p{L}+$', 'Zürich')).toBe(true);
    expect(matches('^(?<year>\\d{4})-\\d{2}$', '2024-11')).toBe(true);
    expect(matches('^[^<>:"\\\\|?*]+\\.md$', 'digest.md')).toBe(true);
    expect(matches('^[^<>:"\\\\|?*]+\\.md$', 'a|b.md')).toBe(false);
    expect(matches('', 'anything')).toBe(true);
  });

  it('fails to compile lookaround and backreferences, saying so', () => {
    for (const pattern of ['^(?=a)', '(?!a)b', '(?<=a)b', '(a)\\1', '(?<x>a)\\k<x>']) {
      expect(() => compileLinearRegExp(pattern), pattern).toThrow(
        /uses syntax the linear-time engine does not support, e\.g\. lookaround or backreferences/,
      );
    }
    const error = (() => {
      try {
        new SkillSchemas().compile({ type: 'string', pattern: '^(?!admin)' });
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(SkillError);
    expect((error as SkillError).message).toMatch(
      /^Invalid JSON Schema: pattern "\^\(\?!admin\)" uses syntax/,
    );
  });

  it('reports a pattern that is no regular expression at all as such', () => {
    expect(() => compileLinearRegExp('(')).toThrow(/pattern "\(" is not a valid regular expression/);
  });

  it('leaves formats working', () => {
    const validate = createAjv().compile({ type: 'string', format: 'email' });
    expect(validate('someone@example.com')).toBe(true);
    expect(validate('nope')).toBe(false);
  });

  it('runs the patterns of protocol schemas', () => {
    const validator = new SchemaValidator(
      Type.Object({ version: Type.String({ pattern: '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)$' }) }),
      'request',
    );
    expect(validator.parse({ version: '1.2.3' })).toEqual({ version: '1.2.3' });
    expect(() => validator.parse({ version: '1.2' })).toThrow(/\[version\] must match pattern/);
  });
});
