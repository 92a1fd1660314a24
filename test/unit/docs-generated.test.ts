import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stalePages } from '../../scripts/docs/pages';

// The configuration reference, the error table and the quoted examples are written by
// `npm run docs` from the config schemas, the error catalogue and examples/: a change to any of
// them that is not carried into the pages fails here.

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

describe('generated documentation', () => {
  it('README.md and docs/*.md are what npm run docs writes', () => {
    const stale = stalePages(repoRoot).map(({ path }) => path);
    expect(stale, 'stale pages: run npm run docs').toEqual([]);
  });
});
