import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configReference } from './config-reference';
import { errorTable } from './error-table';

/**
 * Parts of the docs that are written from the code rather than by hand. A page marks each with
 * `<!-- BEGIN GENERATED: name -->` … `<!-- END GENERATED -->`; quoted examples with
 * `<!-- BEGIN EXAMPLE: examples/path -->` … `<!-- END EXAMPLE -->`, which hold the file as a
 * fenced code block, so that a snippet on a page is the file that CI type-checks and runs.
 */
const GENERATORS: Record<string, () => string> = {
  'config-reference': configReference,
  'error-codes': errorTable,
};

const REGION = /(<!-- BEGIN (GENERATED|EXAMPLE): ([^ ]+) -->\n)[\s\S]*?(<!-- END \2 -->)/g;

const FENCE_LANGUAGE: Record<string, string> = { ts: 'ts', mts: 'ts', sh: 'sh', json: 'json', md: 'md' };

/** The page with every marked region written afresh. */
export function regenerate(page: string, repoRoot: string): string {
  return page.replace(REGION, (_whole, begin: string, kind: string, name: string, end: string) => {
    const body = kind === 'GENERATED' ? generated(name) : exampleBlock(name, repoRoot);
    return `${begin}\n${body}\n\n${end}`;
  });
}

function generated(name: string): string {
  const generator = GENERATORS[name];
  if (!generator)
    throw new Error(`No generator named ${name} (known: ${Object.keys(GENERATORS).join(', ')})`);
  return generator();
}

function exampleBlock(path: string, repoRoot: string): string {
  const text = readFileSync(join(repoRoot, path), 'utf8').trimEnd();
  const language = FENCE_LANGUAGE[path.split('.').pop() ?? ''] ?? '';
  return `\`\`\`${language}\n${text}\n\`\`\``;
}
