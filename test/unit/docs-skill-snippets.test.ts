import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAjv, SkillDefinition } from '@skillrun/core';
import { describe, expect, it } from 'vitest';
import { LlmSkillSettings } from '../../apps/worker/src/llm/llm-settings';

// docs/skills.md quotes skill.json and llm.json as a skill author writes them: each quote is held to
// what the worker reads (its schemas) and, where it names a shipped skill, to that skill's file, so
// that the page cannot drift from the code.

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const page = readFileSync(join(repoRoot, 'docs/skills.md'), 'utf8');
const blocks = [...page.matchAll(/^```json\n([\s\S]*?)^```/gm)].map((match) => match[1] ?? '');

/** The one JSON quote of the page that holds `marker`, read as JSON (a fragment of fields as an object). */
function quote(marker: string): Record<string, unknown> {
  const found = blocks.filter((block) => block.includes(marker));
  expect(found, `one quote with ${marker}`).toHaveLength(1);
  const text = (found[0] ?? '').trim();
  return JSON.parse(text.startsWith('{') ? text : `{${text}}`) as Record<string, unknown>;
}

/** What the schema refuses of `value`, its defaults filled in first (as the worker's loader does). */
function errorsOf(schema: object, value: unknown): unknown {
  const validate = createAjv({ useDefaults: true }).compile(schema);
  return validate(value) ? [] : validate.errors;
}

describe('the skill.json and llm.json quoted in docs/skills.md', () => {
  it('llm.json: the settings an llm skill may override, as the worker validates them', () => {
    expect(errorsOf(LlmSkillSettings, quote('"api_key_env"'))).toEqual([]);
  });

  it("a pipeline: research_and_summarize's own, as shipped", () => {
    const shipped = JSON.parse(
      readFileSync(join(repoRoot, 'skills/workflow/research-and-summarize/skill.json'), 'utf8'),
    ) as Record<string, unknown>;
    const quoted = quote('"pipeline"');
    expect(quoted).toEqual({
      calls: shipped.calls,
      pipeline: shipped.pipeline,
      outputMapping: shipped.outputMapping,
    });
  });

  it('a task: fields a skill.json loads with', () => {
    const definition = {
      name: 'review_request',
      description: 'A person approves a document or not.',
      category: 'review',
      input: { type: 'object' },
      output: { type: 'object' },
      version: '1.0.0',
      ...quote('"mode": "task"'),
    };
    expect(errorsOf(SkillDefinition, definition)).toEqual([]);
  });
});
