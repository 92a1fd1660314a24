import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { stringify } from 'yaml';
import { gatewayObjects } from './gateway';
import { monitoringObjects } from './monitoring';
import { metadataOf, sharedConfigName, sharedSettings } from './pod-parts';
import { parseValues, type Values } from './values';
import { workerPoolObjects } from './worker-pool';

/** A built object: kubernetes-models checks it against its Kubernetes, KEDA or prometheus-operator schema. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string };
  validate(): void;
  toJSON(): unknown;
}

/** Every object of a deployment, from checked values; each validated against its schema. */
export function buildManifests(input: unknown): Manifest[] {
  const values: Values = parseValues(input);
  const sharedConfig = new ConfigMap({
    metadata: metadataOf(values, sharedConfigName(values)),
    data: sharedSettings(values),
  });
  const manifests: Manifest[] = [
    sharedConfig,
    ...gatewayObjects(values),
    ...values.workerPools.flatMap((pool) => workerPoolObjects(values, pool)),
    ...monitoringObjects(values),
  ];
  for (const manifest of manifests) manifest.validate();
  return manifests;
}

/** The objects as one multi-document YAML file, for kubectl apply -f. */
export function toYaml(manifests: Manifest[], source: string): string {
  const header = `# Generated from ${source} by scripts/kubernetes/render.mts (docs/kubernetes.md): edit the values, not this file.\n`;
  return (
    header + manifests.map((manifest) => `---\n${stringify(manifest.toJSON(), { lineWidth: 0 })}`).join('')
  );
}
