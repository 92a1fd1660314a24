import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { kustomizationOf, OBJECTS_FILE } from './kustomization';
import { buildManifests, toYaml } from './manifests';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** The base users' overlays build on, and the values it is rendered from. */
export const BASE = join(repoRoot, 'deploy/kubernetes/base');
export const BASE_VALUES = join(BASE, 'values.yaml');

/** The files of the Kustomize base a values file renders to, by name. */
export function renderBase(valuesPath: string): Record<string, string> {
  const values = parse(readFileSync(valuesPath, 'utf8')) as unknown;
  const source = relative(repoRoot, valuesPath) || basename(valuesPath);
  const header = `# Generated from ${source} by scripts/kubernetes/render.mts: customize with an overlay (docs/kubernetes.md), not by editing this file.\n`;
  return {
    'kustomization.yaml': header + stringify(kustomizationOf(values), { lineWidth: 0 }),
    [OBJECTS_FILE]: toYaml(buildManifests(values), header),
  };
}
