// Renders Kubernetes manifests from a values file (docs/kubernetes.md):
//   node --import tsx scripts/kubernetes/render.mts my-values.yaml > skillrun.yaml
//   node --import tsx scripts/kubernetes/render.mts --examples   (rewrites deploy/kubernetes/rendered/)
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLES, RENDERED, renderFile } from './render-file';

const [argument] = process.argv.slice(2);
if (argument === '--examples') {
  for (const file of readdirSync(EXAMPLES).filter((name) => name.endsWith('.yaml'))) {
    writeFileSync(join(RENDERED, file), renderFile(join(EXAMPLES, file)));
    process.stderr.write(`rendered deploy/kubernetes/rendered/${file}\n`);
  }
} else if (argument) {
  process.stdout.write(renderFile(argument));
} else {
  process.stderr.write('usage: render.mts VALUES.yaml | --examples\n');
  process.exitCode = 2;
}
