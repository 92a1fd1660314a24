import { ErrorCatalog, type SkillDescriptor } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

interface Answer {
  total: number;
  results: {
    id: string;
    score: number | null;
    source: { file: string };
    document: Record<string, unknown>;
  }[];
}

const handbook = `${repoRoot}test/fixtures/knowledge-skills`;

describe('knowledge skills', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({
      SKILLS_DIR: `${repoRoot}skills/reference:${repoRoot}skills/workflow/explain-error:${handbook}`,
    });
  });
  afterAll(() => system?.stop());

  it('answers a query over the error catalogue, best match first, each with its source', async () => {
    const { final } = await system.client.run('error_codes', { query: 'execution timeout', limit: 3 });
    expect(final.status).toBe('completed');
    const answer = final.output as Answer;
    expect(answer.results[0]?.id).toBe('EXECUTION_TIMEOUT');
    expect(answer.results.length).toBe(3);
    expect(answer.results.every(({ source }) => source.file === 'error-codes.json')).toBe(true);
    const scores = answer.results.map(({ score }) => score ?? 0);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('filters and pages: every 404 of the catalogue, two at a time', async () => {
    const codes404 = Object.entries(ErrorCatalog)
      .filter(([, entry]) => entry.http === 404)
      .map(([code]) => code);
    const pages: string[] = [];
    for (let offset = 0; offset < codes404.length; offset += 2) {
      const { final } = await system.client.run('error_codes', { filters: { http: 404 }, limit: 2, offset });
      const answer = final.output as Answer;
      expect(answer.total).toBe(codes404.length);
      pages.push(...answer.results.map(({ id }) => id));
    }
    expect(pages).toEqual(codes404);
  });

  it('searches Markdown and JSONL documents, forgiving a typo', async () => {
    const { final } = await system.client.run('handbook', {
      query: 'authentcation',
      filters: { team: 'platform' },
    });
    const answer = final.output as Answer;
    expect(answer.results.map(({ id, source }) => [id, source.file])).toEqual([
      ['auth', 'authentication.md'],
      ['teams/people#0', 'teams/people.jsonl'],
    ]);
  });

  it('runs a pipeline composite over it that needs no LLM', async () => {
    const { final } = await system.client.run('explain_error', { message: 'SKILL_NOT_FOUND', limit: 1 });
    expect(final.status).toBe('completed');
    expect(final.output).toEqual({
      found: expect.any(Number),
      matches: [{ id: 'SKILL_NOT_FOUND', code: 'SKILL_NOT_FOUND', ...ErrorCatalog.SKILL_NOT_FOUND }],
    });
    expect(final.steps?.map(({ skill_id, status }) => [skill_id, status])).toEqual([
      ['error_codes', 'completed'],
    ]);
  });

  it('describes itself as a knowledge capability, and refuses a bad query with 400', async () => {
    const described = await system.client.request<SkillDescriptor>('/skills/error_codes');
    expect(described.body.capability_type).toBe('knowledge');
    const refused = await system.client.invoke('error_codes', { query: 'x', limit: 0 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: expect.stringMatching(/INVALID_INPUT|PARAM_OUT_OF_RANGE/),
    });
  });
});
