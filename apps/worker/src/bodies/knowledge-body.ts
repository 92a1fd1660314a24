import { SchemaValidator, toErrorBody } from '@skillrun/core';
import { KnowledgeQuery } from '../knowledge/knowledge-query';
import type { Attempt, BodyOutcome, SkillBody } from './skill-body';

const queryValidator = new SchemaValidator(KnowledgeQuery, 'knowledge query');

/**
 * A query over the skill's documents, answered from the index the worker built when it loaded the
 * skill: no code of the skill's runs, so nothing runs in a sandbox thread.
 */
export class KnowledgeBody implements SkillBody {
  readonly resumes = false;
  readonly countsStarts = true;
  readonly handsIn = false;

  async run({ skill, input }: Attempt): Promise<BodyOutcome> {
    if (skill.body.kind !== 'knowledge') throw new Error(`${skill.definition.name} has no documents`);
    try {
      const query = queryValidator.parse({ ...input }, '/inputs');
      return { ok: true, output: skill.body.index.query(query) };
    } catch (error) {
      return { ok: false, error: toErrorBody(error, 'INVALID_INPUT') };
    }
  }
}
