// Renders a Kustomize base from a values file (docs/kubernetes.md); users customize it with overlays.
//   node --import tsx scripts/kubernetes/render.mts --base          (rewrites deploy/kubernetes/base/ from its values.yaml)
//   node --import tsx scripts/kubernetes/render.mts VALUES.yaml DIR  (a base of your own: other worker pools)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BASE, BASE_VALUES, renderBase } from './render-base';

const args = process.argv.slice(2);
const [valuesPath, dir] = args.length === 1 && args[0] === '--base' ? [BASE_VALUES, BASE] : args;
if (valuesPath && dir && !valuesPath.startsWith('--') && args.length <= 2) {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(renderBase(valuesPath))) {
    writeFileSync(join(dir, name), text);
    process.stderr.write(`rendered ${join(dir, name)}\n`);
  }
} else {
  process.stderr.write('usage: render.mts --base | render.mts VALUES.yaml DIR\n');
  process.exitCode = 2;
}
