// Node's load hook that imports a `.lua` file as its text (its default export), as esbuild's text
// loader does in the bundles: registered by lua-text.mjs for whatever runs the sources under tsx.
import { readFile } from 'node:fs/promises';

export async function load(url, context, nextLoad) {
  if (!url.endsWith('.lua')) return nextLoad(url, context);
  const script = await readFile(new URL(url), 'utf8');
  return { format: 'module', source: `export default ${JSON.stringify(script)};`, shortCircuit: true };
}
