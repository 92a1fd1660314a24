import { labelsOf, sharedConfigName, sharedSettings } from './pod-parts';
import { parseValues } from './values';

/** The file of the base's objects, beside its kustomization.yaml. */
export const OBJECTS_FILE = 'skillrun.yaml';

/**
 * The base's kustomization.yaml: its objects, all in the values' namespace, and the ConfigMap of
 * the settings gateways and workers share, generated so that its name carries a hash of its
 * content: an overlay that merges settings into it (Redis') renames it, and every pod rolls.
 */
export function kustomizationOf(input: unknown) {
  const values = parseValues(input);
  return {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    namespace: values.namespace,
    resources: [OBJECTS_FILE],
    configMapGenerator: [
      {
        name: sharedConfigName(values),
        options: { labels: labelsOf(values) },
        literals: Object.entries(sharedSettings(values)).map(([name, value]) => `${name}=${value}`),
      },
    ],
  };
}
