import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCatalog } from '@skillrun/core';
import { describe, expect, it } from 'vitest';
import { readDocuments } from '../../apps/worker/src/knowledge/knowledge-documents';
import { KnowledgeIndex } from '../../apps/worker/src/knowledge/knowledge-index';

const HANDBOOK = new URL('../fixtures/knowledge-skills/handbook/documents', import.meta.url).pathname;
const settings = { documents: 'documents', boost: { title: 3 }, fuzzy: 0.2, prefix: true };
const page = { query: '', limit: 10, offset: 0 };

describe('knowledge documents', () => {
  it('reads Markdown (front matter, first heading as title), JSONL and JSON, with ids and sources', async () => {
    const documents = await readDocuments(HANDBOOK);
    expect(documents.map(({ id, source }) => [id, source])).toEqual([
      ['auth', { file: 'authentication.md' }],
      ['deploy', { file: 'deploy.md' }],
      ['teams/people#0', { file: 'teams/people.jsonl', index: 0 }],
      ['teams/people#2', { file: 'teams/people.jsonl', index: 2 }],
    ]);
    expect(documents[0]?.fields).toMatchObject({ id: 'auth', title: 'Authentication', team: 'platform' });
    expect(documents[0]?.fields.content).toContain('X-API-Key');
  });

  it('names the file and line of a document it cannot read, and a repeated id', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skillrun-knowledge-'));
    try {
      await writeFile(join(dir, 'a.jsonl'), '{"id": 1}\n{"id": 2,\n');
      await expect(readDocuments(dir)).rejects.toThrow(/^a\.jsonl line 2: not JSON/);
      await writeFile(join(dir, 'a.jsonl'), '{"id": 1}\n[1]\n');
      await expect(readDocuments(dir)).rejects.toThrow('a.jsonl line 2: a document must be a JSON object');
      await writeFile(join(dir, 'a.jsonl'), '{"id": "x"}\n');
      await writeFile(join(dir, 'b.json'), '[{"id": "x"}]');
      await expect(readDocuments(dir)).rejects.toThrow('b.json #0: id "x" is also the id of a.jsonl #0');
      await writeFile(join(dir, 'b.json'), '[]');
      await writeFile(join(dir, 'c.md'), '---\n[unclosed\n---\ntext');
      await expect(readDocuments(dir)).rejects.toThrow(/^c\.md: its front matter is not YAML/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('KnowledgeIndex', () => {
  it('ranks matches, forgives a typo and a prefix, and keeps each source', async () => {
    const index = new KnowledgeIndex(await readDocuments(HANDBOOK), settings);
    const typo = index.query({ ...page, query: 'authentcation' });
    expect(typo.results.map((result) => result.id)).toEqual(['auth', 'teams/people#0']);
    expect(typo.results[0]?.score).toBeGreaterThan(typo.results[1]?.score ?? Number.POSITIVE_INFINITY);
    expect(index.query({ ...page, query: 'compil' }).results.map((result) => result.id)).toEqual([
      'teams/people#2',
    ]);
    expect(index.query({ ...page, query: 'nothing like it' }).total).toBe(0);
  });

  it('filters on exact values (any item of a list), and pages', async () => {
    const index = new KnowledgeIndex(await readDocuments(HANDBOOK), settings);
    const platform = index.query({ ...page, filters: { team: 'platform' } });
    expect(platform.results.map((result) => [result.id, result.score])).toEqual([
      ['auth', null],
      ['teams/people#0', null],
    ]);
    expect(index.query({ ...page, filters: { tags: ['languages', 'nope'] } }).total).toBe(1);
    expect(index.query({ ...page, query: 'keys', filters: { team: 'compilers' } }).total).toBe(0);
    const second = index.query({ ...page, limit: 1, offset: 1 });
    expect([second.total, second.results.map((result) => result.id)]).toEqual([4, ['deploy']]);
  });
});

describe('the error_codes knowledge skill', () => {
  it('holds exactly the error catalogue', async () => {
    const documents = await readDocuments(
      new URL('../../skills/reference/error-codes/documents', import.meta.url).pathname,
    );
    const expected = Object.entries(ErrorCatalog).map(([code, { http, recoverable, summary }]) => ({
      id: code,
      code,
      http,
      recoverable,
      summary,
    }));
    // After a change to the catalogue, write skills/reference/error-codes/documents/error-codes.json
    // as this list (JSON, two-space indent).
    expect(documents.map((document) => document.fields)).toEqual(expected);
  });
});
