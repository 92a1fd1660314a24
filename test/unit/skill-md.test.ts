import {
  SKILL_MD_NAME,
  type SkillDefinition,
  type SkillDescriptor,
  skillMdFrontmatter,
  skillMdName,
  toSkillMd,
} from '@skillrun/core';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { exampleContext, publishedLike } from '../support/descriptors';

/** A restricted skill behind an API key, with text a Markdown renderer must escape. */
function descriptorOf(overrides: Partial<SkillDefinition>): SkillDescriptor {
  return publishedLike(
    {
      name: 'com.example.Text_Stats',
      description: 'Counts words: "quoted", with a colon.\n---\nand a rule.',
      input: {
        type: 'object',
        properties: {
          text: { type: 'string', description: 'What to count | split.', examples: ['hello world'] },
          unit: { type: 'string', enum: ['words', 'chars'], default: 'words' },
        },
        required: ['text'],
      },
      ...overrides,
    },
    {
      ...exampleContext,
      defaults: { access: 'restricted', capabilityType: 'api', auth: { type: 'api_key' } },
    },
  );
}

/** The frontmatter between the first two `---` lines, parsed as YAML, and the Markdown after it. */
function split(skillMd: string): { frontmatter: unknown; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(skillMd);
  if (!match) throw new Error('no frontmatter');
  return { frontmatter: parse(match[1] ?? ''), body: match[2] ?? '' };
}

describe('toSkillMd', () => {
  it('begins with YAML frontmatter that parses back to the name, description, id and version', () => {
    const descriptor = descriptorOf({});
    const { frontmatter } = split(toSkillMd(descriptor));
    expect(frontmatter).toEqual({
      name: 'com-example-text-stats',
      description: descriptor.description,
      metadata: { 'skillrun-id': 'com.example.Text_Stats', version: '2.1.0' },
    });
    expect(frontmatter).toEqual(skillMdFrontmatter(descriptor));
  });

  it('tells the inputs as a table, the output, an example, the errors and how to call it', () => {
    const { body } = split(toSkillMd(descriptorOf({})));
    expect(body).toContain('| `text` | string | yes | What to count \\| split. |');
    expect(body).toContain('| `unit` | string | no | Default: `"words"`. |');
    expect(body).toContain('"count"');
    expect(body).toContain('"text": "hello world"');
    for (const code of [
      'INVALID_INPUT',
      'MISSING_REQUIRED_PARAM',
      'RATE_LIMIT_EXCEEDED',
      'EXECUTION_TIMEOUT',
    ]) {
      expect(body).toContain(`| \`${code}\` |`);
    }
    expect(body).toContain('the tool `com.example.Text_Stats`');
    expect(body).toContain(
      "curl -sS -X POST 'https://skills.example.com/skills/com.example.Text_Stats/invoke?version=2.1.0'",
    );
    expect(body).toContain('Authorization: Bearer $SKILLRUN_TOKEN');
    expect(body).toContain(
      "curl -sS 'https://skills.example.com/skills/com.example.Text_Stats/status/{execution_id}'",
    );
  });

  it('says a deprecated skill is deprecated, in its description and its text', () => {
    const descriptor: SkillDescriptor = {
      ...descriptorOf({}),
      'x-deprecated': { message: 'Use text_stats_v3.', deprecated_at: '2026-01-02T03:04:05.000Z' },
    };
    const skillMd = toSkillMd(descriptor);
    const { frontmatter, body } = split(skillMd);
    expect((frontmatter as { description: string }).description).toContain('Deprecated: Use text_stats_v3.');
    expect(body).toContain('> **Deprecated** since 2026-01-02T03:04:05.000Z: Use text_stats_v3.');
  });

  it("keeps the description within Agent Skills' 1024 characters", () => {
    const { frontmatter } = split(toSkillMd(descriptorOf({ description: 'x'.repeat(5000) })));
    expect((frontmatter as { description: string }).description).toHaveLength(1024);
  });
});

describe('skillMdName', () => {
  it('keeps to the Agent Skills naming rule, the same for the same id', () => {
    const ids = [
      'echo',
      'com.example.translate-v1',
      'A__B..c',
      '-x-',
      `${'a.'.repeat(80)}z`,
      '9',
      'Upper.CASE_id',
    ];
    for (const id of ids) {
      expect(skillMdName(id)).toMatch(SKILL_MD_NAME);
      expect(skillMdName(id)).toBe(skillMdName(id));
    }
    expect(skillMdName('com.example.translate-v1')).toBe('com-example-translate-v1');
    expect(skillMdName('A__B..c')).toBe('a-b-c');
  });

  it('cuts a long id short with a hash of it, so that two long ids stay apart', () => {
    const one = skillMdName(`${'a'.repeat(100)}1`);
    const two = skillMdName(`${'a'.repeat(100)}2`);
    expect(one).toHaveLength(64);
    expect(one).not.toBe(two);
  });
});
