import { readFileSync } from 'node:fs';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { parse } from 'yaml';
import { labelsOf, metadataOf } from './pod-parts';
import type { Values } from './values';
import { METRICS_PORT } from './worker-pool';

const repoFile = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The datasource uid the dashboard file names (compose's Grafana provisions it). */
const COMPOSE_DATASOURCE_UID = 'skillrun-prometheus';

/**
 * deploy/grafana/dashboards/skillrun.json, naming your Grafana's Prometheus datasource, and the jobs
 * as the ServiceMonitors name them (the Services' names) where compose's Prometheus says `gateway`
 * and `worker`.
 */
export function dashboardFor(values: Values): string {
  const dashboard = repoFile('deploy/grafana/dashboards/skillrun.json');
  return dashboard
    .replaceAll(
      `"uid": "${COMPOSE_DATASOURCE_UID}"`,
      `"uid": ${JSON.stringify(values.monitoring.grafanaDatasourceUid)}`,
    )
    .replaceAll('job=\\"gateway\\"', `job=\\"${values.name}-gateway\\"`)
    .replaceAll('job=\\"worker\\"', `job=\\"${values.name}-worker\\"`);
}

export function monitoringObjects(values: Values) {
  const workerName = `${values.name}-worker`;
  const gatewayName = `${values.name}-gateway`;
  const monitoringMetadata = (name: string, component?: 'gateway' | 'worker') => {
    const metadata = metadataOf(values, name, component);
    return { ...metadata, labels: { ...metadata.labels, ...values.monitoring.labels } };
  };
  // Headless: only for Prometheus to find every worker of every pool.
  const workerService = new Service({
    metadata: metadataOf(values, workerName, 'worker'),
    spec: {
      clusterIP: 'None',
      selector: labelsOf(values, 'worker'),
      ports: [{ name: 'metrics', port: METRICS_PORT, targetPort: 'metrics' }],
    },
  });
  const monitors = [
    { name: gatewayName, component: 'gateway' as const, port: 'http' },
    { name: workerName, component: 'worker' as const, port: 'metrics' },
  ].map(
    ({ name, component, port }) =>
      new ServiceMonitor({
        metadata: monitoringMetadata(name, component),
        spec: {
          // The job label is the Service's name: what the KEDA queries select. No namespaceSelector:
          // the monitor's own namespace, wherever an overlay puts it.
          selector: { matchLabels: labelsOf(values, component) },
          endpoints: [{ port, path: '/metrics', interval: '15s' }],
        },
      }),
  );
  const rules = parse(repoFile('deploy/prometheus/alerts.yml')) as { groups: unknown[] };
  const prometheusRule = new PrometheusRule({
    metadata: monitoringMetadata(`${values.name}-alerts`),
    spec: { groups: rules.groups as PrometheusRule['spec']['groups'] },
  });
  // Grafana's dashboard sidecar (the Grafana chart's, kube-prometheus-stack's) loads ConfigMaps labelled so.
  const dashboard = new ConfigMap({
    metadata: {
      ...metadataOf(values, `${values.name}-dashboard`),
      labels: { ...labelsOf(values), grafana_dashboard: '1' },
    },
    data: { 'skillrun.json': dashboardFor(values) },
  });
  return [workerService, ...monitors, prometheusRule, dashboard];
}
