// Builds the publishable package: `tsc` to `dist/` (JavaScript and declarations), and beside it a
// package.json whose exports point at them. Publish with `npm publish packages/client/dist`.
// npm has no `publishConfig.exports`: in this repository `exports` must stay on the sources.
// Usage: node scripts/build.mjs [outDir]
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = resolve(root, process.argv[2] ?? 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(outDir, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', resolve(root, 'tsconfig.build.json'), '--outDir', outDir], {
  stdio: 'inherit',
});

const source = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
const published = {
  name: source.name,
  version: source.version,
  description: source.description,
  license: source.license,
  type: 'module',
  engines: source.engines,
  sideEffects: false,
  exports: { '.': { types: './index.d.ts', default: './index.js' } },
  types: './index.d.ts',
};
writeFileSync(resolve(outDir, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
writeFileSync(resolve(outDir, 'README.md'), readFileSync(resolve(root, 'README.md')));
