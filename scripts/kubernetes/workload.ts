import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IContainerPort } from 'kubernetes-models/v1/ContainerPort';
import { nodeArgsOf } from '../node-args.mjs';
import {
  CONTAINER_SECURITY,
  type Component,
  envSources,
  labelsOf,
  metadataOf,
  POD_SECURITY,
} from './pod-parts';
import type { Values } from './values';

/** The pods of one component (of one worker pool, for workers), under the Deployment's name. */
export interface Workload {
  name: string;
  component: Component;
  pool?: string;
}

/** What a component's pod sets itself; the image, the start script and the security are every pod's. */
export interface PodDesign {
  /** From SIGTERM to the kill: what the process needs to finish what it holds. */
  terminationGracePeriodSeconds: number;
  /** The one port, named: the probes, the Service and the ServiceMonitor ask it by that name. */
  port: IContainerPort;
  /** The container's env, probes, lifecycle and resources. */
  container: Pick<
    IContainer,
    'env' | 'readinessProbe' | 'livenessProbe' | 'startupProbe' | 'lifecycle' | 'resources'
  >;
}

/**
 * A component's Deployment, with no replicas: its autoscaler (an HPA, or KEDA's) sets them, and an
 * apply must not reset them. New pods start before old ones drain, so that the component never
 * runs short during an upgrade.
 */
export function deploymentOf(values: Values, workload: Workload, pod: PodDesign): Deployment {
  const selector = labelsOf(values, workload.component, workload.pool);
  return new Deployment({
    metadata: metadataOf(values, workload.name, workload.component, workload.pool),
    spec: {
      selector: { matchLabels: selector },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
      template: {
        metadata: { labels: selector },
        spec: {
          securityContext: POD_SECURITY,
          terminationGracePeriodSeconds: pod.terminationGracePeriodSeconds,
          containers: [containerOf(values, workload.component, pod)],
        },
      },
    },
  });
}

function containerOf(values: Values, component: Component, pod: PodDesign): IContainer {
  return {
    name: component,
    image: values.image,
    imagePullPolicy: values.imagePullPolicy,
    command: ['node', ...nodeArgsOf(`start:${component}`)],
    ports: [pod.port],
    envFrom: envSources(values, component),
    ...pod.container,
    securityContext: CONTAINER_SECURITY,
  };
}

/** A voluntary disruption (a node drained) takes the workload's pods one at a time. */
export function disruptionBudgetOf(values: Values, workload: Workload): PodDisruptionBudget {
  return new PodDisruptionBudget({
    metadata: metadataOf(values, workload.name, workload.component, workload.pool),
    spec: {
      maxUnavailable: 1,
      selector: { matchLabels: labelsOf(values, workload.component, workload.pool) },
    },
  });
}
