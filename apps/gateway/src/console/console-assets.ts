import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where `npm run build` writes the console (apps/console/dist), seen from the code that asks: the
 * gateway's bundle (apps/gateway/dist), the standalone's (apps/standalone/dist) or these sources
 * (apps/gateway/src/console). Undefined when it has not been built.
 */
export function consoleAssetsDir(): string | undefined {
  const candidates = ['../../console/dist/', '../../../console/dist/'].map((path) =>
    fileURLToPath(new URL(path, import.meta.url)),
  );
  return candidates.find((dir) => existsSync(`${dir}index.html`));
}
