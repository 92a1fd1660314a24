import { stringify } from 'yaml';
import { gatewayObjects } from './gateway';
import { monitoringObjects } from './monitoring';
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

/**
 * Every object of a deployment but the shared ConfigMap (the base's kustomization generates it, so
 * that its name changes with its content and an overlay's change rolls the pods), from checked
 * values; each validated against its schema.
 */
export function buildManifests(input: unknown): Manifest[] {
  const values: Values = parseValues(input);
  const manifests: Manifest[] = [
    ...gatewayObjects(values),
    ...values.workerPools.flatMap((pool) => workerPoolObjects(values, pool)),
    ...monitoringObjects(values),
  ];
  for (const manifest of manifests) manifest.validate();
  return manifests;
}

/** The objects as one multi-document YAML file, a resource of the base's kustomization. */
export function toYaml(manifests: Manifest[], header: string): string {
  return (
    header + manifests.map((manifest) => `---\n${stringify(manifest.toJSON(), { lineWidth: 0 })}`).join('')
  );
}
