/**
 * `npm run docs`: writes the generated parts of README.md and docs/*.md (the configuration
 * reference from the config schemas, the error table from the error catalogue, and the examples
 * quoted from examples/). `npm run docs -- --check` changes nothing and fails when a page is stale,
 * as test/unit/docs-generated.test.ts does.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stalePages } from './docs/pages';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');
const stale = stalePages(repoRoot);
for (const { path, text } of stale) {
  if (check) console.error(`${path} is stale: run npm run docs`);
  else writeFileSync(`${repoRoot}/${path}`, text);
}
if (!check) for (const { path } of stale) console.log(`wrote ${path}`);
process.exitCode = check && stale.length > 0 ? 1 : 0;
