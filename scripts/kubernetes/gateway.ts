import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Service } from 'kubernetes-models/v1/Service';
import { nodeArgsOf } from '../node-args.mjs';
import {
  CONTAINER_SECURITY,
  envList,
  envSources,
  httpProbe,
  labelsOf,
  metadataOf,
  POD_SECURITY,
} from './pod-parts';
import type { Values } from './values';

export const GATEWAY_PORT = 3000;

/**
 * Measured (docs/performance.md, docs/scaling.md): about 245 µs of CPU per invocation, so half a
 * core takes some 2,000 invocations a second; 140 MB of RSS after 100,000 invocations, under a heap
 * capped at 512 MB by start:gateway's --max-old-space-size.
 */
const GATEWAY_RESOURCES = {
  requests: { cpu: '500m', memory: '256Mi' },
  limits: { memory: '768Mi' },
};

/** Seconds a stopping gateway keeps answering while the endpoints forget it (preStop). */
const ENDPOINT_DRAIN_SECONDS = 5;

export function gatewayObjects(values: Values) {
  const name = `${values.name}-gateway`;
  const selector = labelsOf(values, 'gateway');
  const { gateway } = values;
  const deployment = new Deployment({
    metadata: metadataOf(values, name, 'gateway'),
    spec: {
      // The HPA sets the number of replicas: none here, so that an apply does not reset it.
      selector: { matchLabels: selector },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
      template: {
        metadata: { labels: selector },
        spec: {
          securityContext: POD_SECURITY,
          // The preStop pause, then MAX_WAIT_SECONDS-long waits and event streams ending.
          terminationGracePeriodSeconds: 30 + ENDPOINT_DRAIN_SECONDS,
          containers: [
            {
              name: 'gateway',
              image: values.image,
              imagePullPolicy: values.imagePullPolicy,
              command: ['node', ...nodeArgsOf('start:gateway')],
              ports: [{ name: 'http', containerPort: GATEWAY_PORT }],
              envFrom: envSources(values, 'gateway'),
              env: envList({
                PORT: String(GATEWAY_PORT),
                PUBLIC_BASE_URL: gateway.publicBaseUrl,
                TRUST_PROXY: gateway.trustProxy,
                ...(gateway.env ?? {}),
              }),
              readinessProbe: httpProbe('/readyz', 'http', 5, 2),
              livenessProbe: httpProbe('/healthz', 'http', 10, 3),
              startupProbe: httpProbe('/healthz', 'http', 2, 30),
              lifecycle: { preStop: { exec: { command: ['sleep', String(ENDPOINT_DRAIN_SECONDS)] } } },
              resources: { ...GATEWAY_RESOURCES, ...(gateway.resources ?? {}) },
              securityContext: CONTAINER_SECURITY,
            },
          ],
        },
      },
    },
  });
  const service = new Service({
    metadata: metadataOf(values, name, 'gateway'),
    spec: { selector, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
  });
  const autoscaler = gatewayAutoscaler(values, name);
  const disruptionBudget = new PodDisruptionBudget({
    metadata: metadataOf(values, name, 'gateway'),
    spec: { maxUnavailable: 1, selector: { matchLabels: selector } },
  });
  return [deployment, service, autoscaler, disruptionBudget];
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
        {
          type: 'prometheus',
          name: 'http-requests',
          metricType: 'AverageValue',
          metadata: {
            serverAddress: values.prometheusUrl,
            query: requestRateQuery(values),
            threshold: String(gateway.targetRequestsPerSecond),
          },
        },
      ],
    },
  });
}
