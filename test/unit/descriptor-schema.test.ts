import { SchemaValidator, SkillDescriptor, SkillError } from '@skillrun/core';
import { describe, expect, it } from 'vitest';
import { REQUIRED_DESCRIPTOR_FIELDS, translateDescriptor } from '../support/descriptors';

const validator = new SchemaValidator(SkillDescriptor, 'skill descriptor');

function violationsOf(descriptor: unknown): { path: string; message: string }[] {
  try {
    validator.parse(structuredClone(descriptor));
  } catch (error) {
    expect(error).toBeInstanceOf(SkillError);
    return (error as SkillError).toBody().details as { path: string; message: string }[];
  }
  throw new Error('expected the descriptor to be refused');
}

describe('the Skill Descriptor schema (spec 000)', () => {
  it("accepts the spec's complete translation example", () => {
    expect(validator.parse(structuredClone(translateDescriptor))).toEqual(translateDescriptor);
  });

  it.each(REQUIRED_DESCRIPTOR_FIELDS)('refuses the example without %s, naming it', (field) => {
    const { [field]: _removed, ...rest } = translateDescriptor as unknown as Record<string, unknown>;
    expect(violationsOf(rest)).toContainEqual(
      expect.objectContaining({ path: `/${field}`, message: 'is required' }),
    );
  });

  it.each([
    ['capability_type', 'apii'],
    ['access', 'publik'],
  ])('refuses a misspelt %s enumeration value, listing the allowed ones', (field, value) => {
    const violations = violationsOf({ ...translateDescriptor, [field]: value });
    expect(violations).toEqual([
      { path: `/${field}`, message: expect.stringMatching(/^must be one of \[/), code: 'INVALID_INPUT' },
    ]);
  });

  it('refuses a misspelt auth type and sub-structure fields', () => {
    expect(
      violationsOf({ ...translateDescriptor, auth: { type: 'apikey' } }).map((each) => each.path),
    ).toEqual(['/auth/type']);
    const endpoint = { ...translateDescriptor.endpoint, method: 'GET', status_url: 'https://x/no-template' };
    expect(violationsOf({ ...translateDescriptor, endpoint }).map((each) => each.path)).toEqual(
      expect.arrayContaining(['/endpoint/method', '/endpoint/status_url']),
    );
    expect(violationsOf({ ...translateDescriptor, version: '2.1' }).map((each) => each.path)).toEqual([
      '/version',
    ]);
  });

  it('refuses unknown top-level fields but lets x- extensions through', () => {
    expect(violationsOf({ ...translateDescriptor, tagz: [] })).toContainEqual(
      expect.objectContaining({ path: '/tagz', message: 'is not a declared property' }),
    );
    expect(() =>
      validator.parse({ ...structuredClone(translateDescriptor), 'x-vendor': { a: 1 } }),
    ).not.toThrow();
  });
});
