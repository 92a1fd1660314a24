import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { buildManifests, toYaml } from './manifests';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** The values examples, and the manifests each renders to (committed, for kubectl apply -f). */
export const EXAMPLES = join(repoRoot, 'deploy/kubernetes/values');
export const RENDERED = join(repoRoot, 'deploy/kubernetes/rendered');

/** The YAML a values file renders to. */
export function renderFile(valuesPath: string): string {
  const values = parse(readFileSync(valuesPath, 'utf8')) as unknown;
  return toYaml(buildManifests(values), relative(repoRoot, valuesPath) || basename(valuesPath));
}
