import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageJson = fileURLToPath(new URL('../package.json', import.meta.url));

/**
 * The arguments after `node` in one of package.json's scripts (e.g. `start:gateway`), so that the
 * bench and the tests start each process exactly as `npm run <script>`, the image and compose do
 * (the bundles npm run build writes must exist).
 */
export function nodeArgsOf(script: string): string[] {
  const { scripts } = JSON.parse(readFileSync(packageJson, 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [command, ...args] = (scripts[script] ?? '').trim().split(/\s+/);
  if (command !== 'node') throw new Error(`package.json's "${script}" does not run node: ${scripts[script]}`);
  return args;
}
