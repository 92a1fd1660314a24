import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Service } from 'kubernetes-models/v1/Service';
import { envList, labelsOf, metadataOf, probesOn } from './pod-parts';
import { prometheusTrigger } from './prometheus-trigger';
import type { Values } from './values';
import { deploymentOf, disruptionBudgetOf, type Workload } from './workload';

export const GATEWAY_PORT = 3000;

/**
 * Measured (docs/performance.md, docs/scaling.md): about 245 µs of CPU per invocation, so half a
 * core takes some 2,000 invocations a second; 130 MB of RSS after 100,000 invocations, under a heap
 * capped at 512 MB by start:gateway's --max-old-space-size (and 8 MB semi-spaces).
 */
const GATEWAY_RESOURCES = {
  requests: { cpu: '500m', memory: '256Mi' },
  limits: { memory: '768Mi' },
};

/** Seconds a stopping gateway keeps answering while the endpoints forget it (preStop). */
const ENDPOINT_DRAIN_SECONDS = 5;

export function gatewayObjects(values: Values) {
  const { gateway } = values;
  const name = `${values.name}-gateway`;
  const workload: Workload = { name, component: 'gateway' };
  const deployment = deploymentOf(values, workload, {
    // The preStop pause, then MAX_WAIT_SECONDS-long waits and event streams ending.
    terminationGracePeriodSeconds: 30 + ENDPOINT_DRAIN_SECONDS,
    port: { name: 'http', containerPort: GATEWAY_PORT },
    container: {
      env: envList({
        // Every interface of the pod: the kubelet's probes, the Service and Prometheus come from outside it.
        HOST: '0.0.0.0',
        PORT: String(GATEWAY_PORT),
        PUBLIC_BASE_URL: gateway.publicBaseUrl,
        TRUST_PROXY: gateway.trustProxy,
        ...(gateway.env ?? {}),
      }),
      ...probesOn('http', 30),
      lifecycle: { preStop: { exec: { command: ['sleep', String(ENDPOINT_DRAIN_SECONDS)] } } },
      resources: { ...GATEWAY_RESOURCES, ...(gateway.resources ?? {}) },
    },
  });
  const service = new Service({
    metadata: metadataOf(values, name, 'gateway'),
    spec: { selector: labelsOf(values, 'gateway'), ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
  });
  const autoscaler = gatewayAutoscaler(values, name);
  return [deployment, service, autoscaler, disruptionBudgetOf(values, workload)];
}

/** The gateways' HTTP answers per second, in this namespace, as the gateway ServiceMonitor names their job. */
export function requestRateQuery(values: Values): string {
  const selector = `{namespace="${values.namespace}", job="${values.name}-gateway"}`;
  return `sum(rate(skillrun_http_requests_total${selector}[1m])) or vector(0)`;
}

/** A plain HPA on CPU; with targetRequestsPerSecond, KEDA's on CPU and requests (it makes the HPA). */
function gatewayAutoscaler(values: Values, name: string) {
  const { gateway } = values;
  const metadata = metadataOf(values, name, 'gateway');
  if (gateway.targetRequestsPerSecond === undefined) {
    return new HorizontalPodAutoscaler({
      metadata,
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
        minReplicas: gateway.minReplicas,
        maxReplicas: gateway.maxReplicas,
        metrics: [
          {
            type: 'Resource',
            resource: {
              name: 'cpu',
              target: { type: 'Utilization', averageUtilization: gateway.targetCpuUtilization },
            },
          },
        ],
      },
    });
  }
  return new ScaledObject({
    metadata,
    spec: {
      scaleTargetRef: { name },
      minReplicaCount: gateway.minReplicas,
      maxReplicaCount: gateway.maxReplicas,
      triggers: [
        {
          type: 'cpu',
          name: 'cpu',
          metricType: 'Utilization',
          metadata: { value: String(gateway.targetCpuUtilization) },
        },
        prometheusTrigger(values, {
          name: 'http-requests',
          metricType: 'AverageValue',
          query: requestRateQuery(values),
          threshold: gateway.targetRequestsPerSecond,
        }),
      ],
    },
  });
}
