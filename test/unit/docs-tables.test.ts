import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { documentationPages } from '../../scripts/docs/pages';

// Tables stay compact (`| a | b |`): padding every row to the widest cell made 108 KB of the old
// README and turned a one-cell change into a change of every row. Biome's Markdown formatter pads
// them, so it is off (biome.json).

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Table rows (outside fenced code) with a run of spaces beside a cell border, or a padded rule. */
function paddedRows(markdown: string): string[] {
  return markdown
    .replace(/^```[\s\S]*?^```/gm, '')
    .split('\n')
    .filter((line) => line.startsWith('|') && (/ {2,}\||\| {2,}/.test(line) || /-{4,}/.test(line)));
}

describe('documentation tables', () => {
  for (const page of documentationPages(repoRoot)) {
    it(`${page}: tables are not padded`, () => {
      expect(paddedRows(readFileSync(join(repoRoot, page), 'utf8'))).toEqual([]);
    });
  }
});
