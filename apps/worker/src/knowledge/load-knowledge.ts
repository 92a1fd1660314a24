import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeViolations, SchemaValidator, type SkillDefinition, type SkillSchemas } from '@skillrun/core';
import { readDocuments } from './knowledge-documents';
import { KnowledgeIndex } from './knowledge-index';
import { KnowledgeQuery } from './knowledge-query';
import { KnowledgeSettings } from './knowledge-settings';

const settingsValidator = new SchemaValidator(KnowledgeSettings, 'knowledge.json');
const queryValidator = new SchemaValidator(KnowledgeQuery, 'query');

/**
 * A knowledge skill's index, from its folder: knowledge.json (optional) and its documents. Throws
 * an Error whose message says what is wrong (the caller names the skill.json): a document that
 * cannot be read, nothing to search, or an input or output schema in skill.json that does not fit
 * what every knowledge skill takes and answers.
 */
export async function loadKnowledge(
  definition: SkillDefinition,
  folder: string,
  schemas: SkillSchemas,
): Promise<KnowledgeIndex> {
  const settings = await readSettings(join(folder, 'knowledge.json'));
  const documents = await readDocuments(join(folder, settings.documents));
  const index = new KnowledgeIndex(documents, settings);
  if (index.size > 0 && index.fields.length === 0) {
    throw new Error(`the documents in ${settings.documents} have no text field to search`);
  }
  const sample = queryValidator.parse({ query: 'a' });
  const input = schemas.validate(definition.input, sample, '/input');
  if (!input.ok) {
    throw new Error(`field "input" must accept a knowledge query: ${describeViolations(input.violations)}`);
  }
  const output = schemas.validate(
    definition.output,
    index.query({ ...sample, query: '', limit: 1 }),
    '/output',
  );
  if (!output.ok) {
    throw new Error(
      `field "output" must accept a knowledge answer: ${describeViolations(output.violations)}`,
    );
  }
  return index;
}

async function readSettings(file: string): Promise<KnowledgeSettings> {
  if (!existsSync(file)) return settingsValidator.parse({});
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(`knowledge.json is not valid JSON (${(error as Error).message})`);
  }
  return settingsValidator.parse(raw);
}
