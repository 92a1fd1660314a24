import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvFromSource } from 'kubernetes-models/v1/EnvFromSource';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPodSecurityContext } from 'kubernetes-models/v1/PodSecurityContext';
import type { Values } from './values';

export type Component = 'gateway' | 'worker';

/** The labels of every object; a pod's selector is these plus its component (and pool). */
export function labelsOf(values: Values, component?: Component, pool?: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'skillrun',
    'app.kubernetes.io/instance': values.name,
    ...(component ? { 'app.kubernetes.io/component': component } : {}),
    ...(pool ? { 'skillrun.dev/pool': pool } : {}),
  };
}

export function metadataOf(values: Values, name: string, component?: Component, pool?: string) {
  return { name, namespace: values.namespace, labels: labelsOf(values, component, pool) };
}

/** The ConfigMap of settings gateways and workers share (Redis, key prefix, the values' env). */
export function sharedConfigName(values: Values): string {
  return `${values.name}-config`;
}

/** Redis as the values give it: a URL, Sentinels, or a cluster's seed nodes (docs/operations.md, "Redis: Sentinel and Cluster"). */
export function sharedSettings(values: Values): Record<string, string> {
  const { redis } = values;
  const byMode: Record<string, string> =
    redis.mode === 'url'
      ? redis.url
        ? { REDIS_URL: redis.url }
        : {}
      : redis.mode === 'sentinel'
        ? { REDIS_SENTINELS: redis.sentinels.join(','), REDIS_SENTINEL_NAME: redis.masterName }
        : { REDIS_CLUSTER_NODES: redis.nodes.join(',') };
  return { ...byMode, KEY_PREFIX: values.keyPrefix, ...(values.env ?? {}) };
}

/** The shared settings, then the component's Secret and the shared one, all read whole. */
export function envSources(values: Values, component: Component): IEnvFromSource[] {
  return [
    { configMapRef: { name: sharedConfigName(values) } },
    { secretRef: { name: values.secrets.shared, optional: true } },
    { secretRef: { name: values.secrets[component], optional: true } },
  ];
}

export function envList(env: Record<string, string>): IEnvVar[] {
  return Object.entries(env).map(([name, value]) => ({ name, value }));
}

/** The image's `node` user (uid 1000), no privilege to gain, no capability. */
export const POD_SECURITY: IPodSecurityContext = {
  runAsNonRoot: true,
  runAsUser: 1000,
  runAsGroup: 1000,
  seccompProfile: { type: 'RuntimeDefault' },
};

export const CONTAINER_SECURITY: IContainer['securityContext'] = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
};

/**
 * The probes on the process's own endpoints (docs/operations.md, "Metrics and health") at the named port; the
 * startup probe tries every 2 s, startupFailureThreshold times, before the kubelet restarts it.
 */
export function probesOn(port: string, startupFailureThreshold: number) {
  return {
    readinessProbe: httpProbe('/readyz', port, 5, 2),
    livenessProbe: httpProbe('/healthz', port, 10, 3),
    startupProbe: httpProbe('/healthz', port, 2, startupFailureThreshold),
  };
}

function httpProbe(
  path: '/healthz' | '/readyz',
  port: string,
  periodSeconds: number,
  failureThreshold: number,
) {
  return { httpGet: { path, port }, periodSeconds, timeoutSeconds: 3, failureThreshold };
}
