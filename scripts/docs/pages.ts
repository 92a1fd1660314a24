import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { regenerate } from './generated-regions';

/** The pages of the documentation: the README and every page under docs/, as repo-relative paths. */
export function documentationPages(repoRoot: string): string[] {
  const docs = readdirSync(join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** Each page whose generated regions differ from what the code generates now, with its new text. */
export function stalePages(repoRoot: string): Array<{ path: string; text: string }> {
  return documentationPages(repoRoot).flatMap((path) => {
    const current = readFileSync(join(repoRoot, path), 'utf8');
    const text = regenerate(current, repoRoot);
    return text === current ? [] : [{ path, text }];
  });
}
