import { readFileSync } from 'node:fs';
import {
  type DescriptorContext,
  type SkillDefinition,
  type SkillDescriptor,
  toSkillDescriptor,
} from '@skillrun/core';

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

/** What the unit tests publish definitions with: a provider at an example address, public skills. */
export const exampleContext: DescriptorContext = {
  baseUrl: 'https://skills.example.com',
  provider: { name: 'acme' },
  retryBackoffMs: 750,
  defaults: { access: 'public', capabilityType: 'api', auth: { type: 'none' } },
};

/** A code skill's definition (text_stats 2.1.0, no inputs), with fields overridden. */
export function definitionLike(overrides: Partial<SkillDefinition> = {}): SkillDefinition {
  return {
    name: 'text_stats',
    description: 'Counts words and characters.',
    category: 'text',
    input: { type: 'object', properties: {} },
    output: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
    mode: 'code',
    calls: [],
    version: '2.1.0',
    tags: ['text'],
    timeout: 4000,
    retry: 0,
    ...overrides,
  };
}

/** The descriptor `definitionLike(overrides)` is published as, in `context`. */
export function publishedLike(
  overrides: Partial<SkillDefinition> = {},
  context: DescriptorContext = exampleContext,
): SkillDescriptor {
  return toSkillDescriptor(definitionLike(overrides), context);
}
