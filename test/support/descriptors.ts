import { readFileSync } from 'node:fs';
import type { SkillDescriptor } from '@skillrun/core';

/** The complete translation-skill descriptor of spec 000 section 4.5, verbatim. */
export const translateDescriptor: SkillDescriptor = JSON.parse(
  readFileSync(new URL('../fixtures/descriptors/translate.json', import.meta.url), 'utf8'),
);

/** A copy of the spec's example under another id and version, with fields overridden. */
export function descriptorLike(
  overrides: Partial<SkillDescriptor> & Record<string, unknown>,
): SkillDescriptor {
  return { ...structuredClone(translateDescriptor), ...overrides } as SkillDescriptor;
}

/** The fields spec 000 requires of every descriptor. */
export const REQUIRED_DESCRIPTOR_FIELDS = [
  'protocol',
  'id',
  'name',
  'version',
  'capability_type',
  'description',
  'provider',
  'endpoint',
  'inputs',
  'output',
  'auth',
  'access',
];
