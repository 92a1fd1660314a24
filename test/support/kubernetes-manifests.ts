import { execFileSync } from 'node:child_process';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { Service } from 'kubernetes-models/v1/Service';
import { parseAllDocuments } from 'yaml';

/**
 * Each kind the manifests may hold, with the model that checks it against its schema (Kubernetes'
 * OpenAPI, KEDA's and prometheus-operator's CRDs, as kubernetes-models publishes them).
 */
const MODELS = {
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
} as const;

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: each kind's shape is checked by its model, then read loosely
  spec?: any;
  data?: Record<string, string>;
}

/**
 * The objects of a multi-document YAML file, each validated by its model: throws naming the object
 * and the schema's complaint, or a kind no model covers.
 */
export function validatedObjects(text: string): KubeObject[] {
  return parseAllDocuments(text).map((document) => {
    if (document.errors.length > 0) throw new Error(document.errors.join('; '));
    const object = document.toJS() as KubeObject;
    const Model = MODELS[`${object.apiVersion}/${object.kind}` as keyof typeof MODELS];
    if (!Model) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
    try {
      new Model(object as never).validate();
    } catch (error) {
      throw new Error(`${object.kind} ${object.metadata?.name}: ${(error as Error).message}`);
    }
    return object;
  });
}

export function containerOf(deployment: KubeObject): IContainer {
  const containers = (deployment.spec as IDeployment['spec'])?.template.spec?.containers ?? [];
  if (containers.length !== 1) throw new Error(`${deployment.metadata.name}: one container expected`);
  return containers[0] as IContainer;
}

/** What `kubectl kustomize DIR` renders (the YAML `kubectl apply -k DIR` would apply). */
export function kustomize(dir: string): string {
  return execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
}

/**
 * The environment a container starts with, but for Secrets: each ConfigMap it reads whole, then
 * its own plain variables over them (as the kubelet does); throws on a ConfigMap that is not there.
 */
export function startEnvOf(container: IContainer, objects: KubeObject[]): Record<string, string> {
  const fromConfigMaps = (container.envFrom ?? []).flatMap((source) => {
    const name = source.configMapRef?.name;
    if (name === undefined) return [];
    const configMap = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === name);
    if (!configMap) throw new Error(`${container.name} reads ConfigMap ${name}, which is not there`);
    return Object.entries(configMap.data ?? {});
  });
  return { ...Object.fromEntries(fromConfigMaps), ...envOf(container) };
}

/** A container's plain environment (value, not valueFrom), by name. */
export function envOf(container: IContainer): Record<string, string> {
  return Object.fromEntries(
    (container.env ?? []).flatMap((variable) =>
      variable.value === undefined ? [] : [[variable.name, variable.value]],
    ),
  );
}

/** Whether a label selector's matchLabels all hold in `labels`. */
export function selects(
  selector: Record<string, string> | undefined,
  labels: Record<string, string>,
): boolean {
  return (
    selector !== undefined &&
    Object.keys(selector).length > 0 &&
    Object.entries(selector).every(([key, value]) => labels[key] === value)
  );
}
