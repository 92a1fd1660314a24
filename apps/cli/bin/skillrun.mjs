#!/usr/bin/env node
// `skillrun`, the command line of a skillrun service. Runs the bundle `npm run build` writes
// (dist/main.mjs) when it is newer than every source it is built from; otherwise runs the
// TypeScript sources through tsx, so that it works straight after `npm install`.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = new URL('../dist/main.mjs', import.meta.url);
const sources = ['../src/', '../../../packages/client/src/'].map((path) => new URL(path, import.meta.url));

/** The newest modification time of the .ts files under a folder (0 when it does not exist). */
function newest(folder) {
  if (!existsSync(folder)) return 0;
  let latest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) {
      latest = Math.max(latest, statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs);
    }
  }
  return latest;
}

const bundled =
  existsSync(bundle) &&
  statSync(bundle).mtimeMs >= Math.max(...sources.map((url) => newest(fileURLToPath(url))));
if (bundled) {
  await import(bundle.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../../../scripts/lua-text.mjs');
  await import('../src/main.ts');
}
