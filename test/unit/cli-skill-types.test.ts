import type { SkillDescriptor } from '@skillrun/client';
import { describe, expect, it } from 'vitest';
import { generateSkillTypes } from '../../apps/cli/src/types/generate-skill-types';
import { pascalCase, typeNamesOf } from '../../apps/cli/src/types/type-names';

const descriptor = (id: string, fields: Partial<SkillDescriptor> = {}): SkillDescriptor => ({
  protocol: { version: '1.0' },
  id,
  name: id,
  version: '1.2.0',
  capability_type: 'analysis',
  description: 'A test skill',
  provider: { name: 'test' },
  endpoint: { url: 'http://x/invoke', status_url: 'http://x/status', result_url: 'http://x/result' },
  inputs: [
    { name: 'text', type: 'string', required: true, description: 'The text', schema: { minLength: 1 } },
    { name: 'mode', type: 'string', required: false, schema: { enum: ['plain', 'loud'] } },
    { name: 'count', type: 'integer', required: false, default: 1 },
  ],
  output: {
    content_type: 'application/json',
    schema: {
      title: 'Whatever the skill calls it',
      type: 'object',
      properties: { words: { type: 'integer' }, items: { type: 'array', items: { $ref: '#/$defs/item' } } },
      required: ['words'],
      $defs: { item: { type: 'object', properties: { word: { type: 'string' } } } },
    },
  },
  auth: { type: 'none' },
  access: 'public',
  ...fields,
});

describe('skillrun types: TypeScript from descriptors', () => {
  it('names types after skill ids, uniquely', () => {
    expect(pascalCase('text_stats')).toBe('TextStats');
    expect(pascalCase('com.acme.summarize-v2')).toBe('ComAcmeSummarizeV2');
    expect(pascalCase('3d_render')).toBe('Skill3dRender');
    expect([...typeNamesOf(['a_b', 'a-b', 'a.b']).values()]).toEqual(['AB', 'AB2', 'AB3']);
  });

  it('writes input and output interfaces and the SkillTypes augmentation of @skillrun/client', async () => {
    const code = await generateSkillTypes(
      [descriptor('text_stats'), descriptor('com.acme.echo')],
      'http://127.0.0.1:3000',
    );
    expect(code).toContain('export interface TextStatsInput {');
    expect(code).toMatch(/text: string;/);
    expect(code).toMatch(/mode\?: "plain" \| "loud";/);
    expect(code).toMatch(/count\?: number;/);
    expect(code).toContain('export interface TextStatsOutput {');
    expect(code).toContain('export interface TextStatsOutputItem {');
    expect(code).toContain('export interface ComAcmeEchoOutputItem {');
    expect(code).not.toContain('[k: string]: unknown');
    expect(code).toContain("declare module '@skillrun/client' {");
    expect(code).toContain('"text_stats": { input: TextStatsInput; output: TextStatsOutput };');
    expect(code).toContain('"com.acme.echo": { input: ComAcmeEchoInput; output: ComAcmeEchoOutput };');
  });

  it('never follows a $ref out of the schema', async () => {
    const hostile = descriptor('hostile', {
      output: { content_type: 'application/json', schema: { $ref: 'file:///etc/passwd' } },
    });
    await expect(generateSkillTypes([hostile], 'http://x')).rejects.toThrow();
  });
});
