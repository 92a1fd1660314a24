import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { CommonConfig } from '@skillrun/core';
import type { RedisTarget } from '@skillrun/core/data';
import { loadGatewayConfig } from '@skillrun/gateway';
import { loadWorkerConfig } from '@skillrun/worker';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { buildManifests } from '../../scripts/kubernetes/manifests';
import { renderBase } from '../../scripts/kubernetes/render-base';
import type { WorkerPoolValues } from '../../scripts/kubernetes/values';
import { workerMemoryLimitMi } from '../../scripts/kubernetes/worker-pool';
import { nodeArgsOf } from '../../scripts/node-args.mjs';
import {
  containerOf,
  envOf,
  type KubeObject,
  kustomize,
  selects,
  startEnvOf,
  validatedObjects,
} from '../support/kubernetes-manifests';
import { repoRoot } from '../support/service-process';

// The Kubernetes manifests (docs/kubernetes.md), checked without a cluster: the base renders from
// its values to the committed files; the base and every overlay, as `kubectl kustomize` renders
// them (what `kubectl apply -k` applies), hold only objects that pass their Kubernetes, KEDA or
// prometheus-operator schema, and the invariants the compose test checks hold there too; each
// overlay's Redis reaches gateways and workers as their own configuration reads it.

const run = promisify(execFile);
const readRepoFile = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
const BASE_DIR = 'deploy/kubernetes/base';
const OVERLAYS_DIR = 'deploy/kubernetes/overlays';
const overlays = readdirSync(join(repoRoot, OVERLAYS_DIR)).sort();

/** Settings that hold credentials: only ever from a Secret. */
const SECRET_SETTINGS = [
  'ADMIN_API_KEY',
  'LLM_API_KEY',
  'PROVIDER_SECRETS_KEY',
  'TASK_LINK_SECRET',
  'REDIS_SENTINEL_PASSWORD',
];

interface PoolValues {
  name: string;
  minReplicas?: number;
  cooldownSeconds?: number;
}

interface Values {
  workerPools: PoolValues[];
  gateway: { targetRequestsPerSecond?: number };
  monitoring: { grafanaDatasourceUid: string };
}

const baseValues = () => parse(readRepoFile(`${BASE_DIR}/values.yaml`)) as Values & Record<string, unknown>;

/** What a kustomization says: its namespace, images and ConfigMap literals (`NAME=value`). */
interface Kustomization {
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string }[];
  configMapGenerator?: { name: string; literals?: string[] }[];
}

const kustomizationIn = (dir: string) =>
  parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization;

/** The shared settings a kustomization gives: its generator's literals, by name. */
function sharedLiterals(dir: string): Record<string, string> {
  const literals = kustomizationIn(dir).configMapGenerator?.find(
    (each) => each.name === 'skillrun-config',
  )?.literals;
  return Object.fromEntries(
    (literals ?? []).map((literal) => [literal.split('=')[0], literal.slice(literal.indexOf('=') + 1)]),
  );
}

/** A deployment as `kubectl apply -k` would make it, and the values its base was rendered from. */
interface Build {
  name: string;
  objects: KubeObject[];
  values: Values;
  namespace: string;
}

function buildOf(name: string, dir: string, values: Values): Build {
  const objects = validatedObjects(kustomize(dir));
  return { name, objects, values, namespace: kustomizationIn(dir).namespace ?? '' };
}

/** A base with what the committed one does not show: a gateway on CPU alone, no pool at zero. */
function otherBase(): Build {
  const values = baseValues();
  delete values.gateway.targetRequestsPerSecond;
  values.workerPools = values.workerPools.map(({ cooldownSeconds: _, ...pool }) => ({
    ...pool,
    minReplicas: 1,
  }));
  const dir = mkdtempSync(join(tmpdir(), 'skillrun-base-'));
  try {
    writeFileSync(join(dir, 'values.yaml'), stringify(values));
    for (const [file, text] of Object.entries(renderBase(join(dir, 'values.yaml')))) {
      writeFileSync(join(dir, file), text);
    }
    return buildOf('a base with the gateway on CPU alone and no pool at zero', dir, values);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const builds: Build[] = [
  buildOf(BASE_DIR, join(repoRoot, BASE_DIR), baseValues()),
  ...overlays.map((overlay) =>
    buildOf(`${OVERLAYS_DIR}/${overlay}`, join(repoRoot, OVERLAYS_DIR, overlay), baseValues()),
  ),
  otherBase(),
];

it('shows both ways to scale a pool and the gateway: at zero and not, by KEDA and by a plain HPA', () => {
  const count = (
    build: Build | undefined,
    kind: string,
    test: (object: KubeObject) => boolean = () => true,
  ) => build?.objects.filter((object) => object.kind === kind && test(object)).length;
  const atZero = (scaler: KubeObject) => scaler.spec.minReplicaCount === 0;
  const [committed, other] = [builds[0], builds.at(-1)];
  expect([count(committed, 'ScaledObject', atZero), count(other, 'ScaledObject', atZero)]).toEqual([1, 0]);
  expect([count(committed, 'HorizontalPodAutoscaler'), count(other, 'HorizontalPodAutoscaler')]).toEqual([
    0, 1,
  ]);
});

it('renders the base from its values to the committed files (node --import tsx scripts/kubernetes/render.mts --base)', () => {
  for (const [name, text] of Object.entries(renderBase(join(repoRoot, BASE_DIR, 'values.yaml')))) {
    expect(text, name).toBe(readRepoFile(`${BASE_DIR}/${name}`));
  }
});

describe.each(builds)('$name', ({ objects, values, namespace }) => {
  const ofKind = (kind: string) => objects.filter((object) => object.kind === kind);
  const named = (kind: string, name: string) => {
    const found = ofKind(kind).find((object) => object.metadata.name === name);
    if (!found) throw new Error(`no ${kind} ${name}`);
    return found;
  };
  const deployments = ofKind('Deployment');
  const gateway = named('Deployment', 'skillrun-gateway');
  const workers = deployments.filter((deployment) => deployment !== gateway);
  const podLabels = (deployment: KubeObject) =>
    deployment.spec.template.metadata.labels as Record<string, string>;
  const sharedConfigs = ofKind('ConfigMap').filter((object) =>
    object.metadata.name.startsWith('skillrun-config-'),
  );
  const sharedConfig = sharedConfigs[0]?.data ?? {};
  const poolOf = (worker: KubeObject) => {
    const pool = values.workerPools.find((each) => worker.metadata.name === `skillrun-worker-${each.name}`);
    if (!pool) throw new Error(`no pool for ${worker.metadata.name}`);
    return pool;
  };

  it('holds only objects that pass their schema, each name once per kind, all in one namespace', () => {
    expect(objects.length).toBeGreaterThan(10);
    const keys = objects.map((object) => `${object.kind}/${object.metadata.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(objects.map((object) => object.metadata.namespace))).toEqual(new Set([namespace]));
    expect(workers.length).toBeGreaterThanOrEqual(2);
  });

  it("reads one shared ConfigMap, its name the generator's with a hash of its content", () => {
    expect(sharedConfigs).toHaveLength(1);
    for (const deployment of deployments) {
      const configMaps = (containerOf(deployment).envFrom ?? []).flatMap(
        (source) => source.configMapRef?.name ?? [],
      );
      expect(configMaps, deployment.metadata.name).toEqual([sharedConfigs[0]?.metadata.name]);
    }
  });

  it('starts gateways and workers from one image with the command lines of npm run start:gateway and start:worker', () => {
    expect(containerOf(gateway).command).toEqual(['node', ...nodeArgsOf('start:gateway')]);
    for (const worker of workers) {
      expect(containerOf(worker).command, worker.metadata.name).toEqual([
        'node',
        ...nodeArgsOf('start:worker'),
      ]);
    }
    expect(new Set(deployments.map((deployment) => containerOf(deployment).image)).size).toBe(1);
  });

  it('probes /readyz and /healthz on the ports the processes listen on, as a user other than root', () => {
    const gatewayContainer = containerOf(gateway);
    const ports = (deployment: KubeObject) =>
      Object.fromEntries(
        (containerOf(deployment).ports ?? []).map((port) => [port.name, port.containerPort]),
      );
    expect(ports(gateway).http).toBe(Number(envOf(gatewayContainer).PORT));
    // On every interface of the pod: the defaults (127.0.0.1) would hide them from probes and Services.
    expect(envOf(gatewayContainer).HOST).toBe('0.0.0.0');
    for (const worker of workers) {
      expect(ports(worker).metrics).toBe(Number(envOf(containerOf(worker)).METRICS_PORT));
      expect(envOf(containerOf(worker)).METRICS_HOST).toBe('0.0.0.0');
    }
    for (const deployment of deployments) {
      const container = containerOf(deployment);
      const portName = deployment === gateway ? 'http' : 'metrics';
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: portName });
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: portName });
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).not.toBe(0);
      expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
    }
  });

  it('lets each worker drain: its kill comes after SHUTDOWN_GRACE_MS, new workers start before old ones stop', () => {
    for (const worker of workers) {
      const env = envOf(containerOf(worker));
      const graceSeconds = Number(env.SHUTDOWN_GRACE_MS) / 1000;
      expect(worker.spec.template.spec.terminationGracePeriodSeconds, worker.metadata.name).toBeGreaterThan(
        graceSeconds,
      );
      expect(worker.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
      // The container sees the node's cores: its sandbox threads are set, and requested.
      expect(Number(env.SANDBOX_THREADS)).toBeGreaterThan(0);
      expect(containerOf(worker).resources?.requests?.cpu).toBe(`${Number(env.SANDBOX_THREADS) * 1000}m`);
      const limit = String(containerOf(worker).resources?.limits?.memory);
      // Room for every sandbox thread's heap and buffers (2 × SANDBOX_THREAD_MEMORY_MB each).
      expect(Number.parseInt(limit, 10)).toBeGreaterThan(
        Number(env.SANDBOX_THREADS) * 2 * Number(env.SANDBOX_THREAD_MEMORY_MB),
      );
    }
  });

  it('scales the gateway on CPU, each worker pool by KEDA on its skills queue depth and age', () => {
    const autoscalers = ofKind('HorizontalPodAutoscaler');
    const gatewayScalers = ofKind('ScaledObject').filter(
      (scaler) => scaler.spec.scaleTargetRef.name === 'skillrun-gateway',
    );
    const { gateway: gatewayValues } = values;
    if (gatewayValues.targetRequestsPerSecond === undefined) {
      // A plain HPA on CPU.
      expect(gatewayScalers).toEqual([]);
      expect(autoscalers.map((hpa) => hpa.spec.scaleTargetRef)).toEqual([
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'skillrun-gateway' },
      ]);
      expect(autoscalers[0]?.spec.metrics[0].resource.name).toBe('cpu');
    } else {
      // KEDA's, on CPU and on the gateways' requests per second (it makes the HPA itself).
      expect(autoscalers).toEqual([]);
      expect(gatewayScalers).toHaveLength(1);
      const triggers = gatewayScalers[0]?.spec.triggers as {
        type: string;
        metadata: Record<string, string>;
      }[];
      expect(triggers.map((trigger) => trigger.type)).toEqual(['cpu', 'prometheus']);
      expect(triggers[1]?.metadata.query).toContain(
        `rate(skillrun_http_requests_total{namespace="${namespace}", job="skillrun-gateway"}`,
      );
      expect(Number(triggers[1]?.metadata.threshold)).toBe(gatewayValues.targetRequestsPerSecond);
    }
    expect(containerOf(gateway).resources?.requests?.cpu).toBeDefined();
    // The autoscalers own the replica counts: an apply must not reset them.
    for (const deployment of deployments) expect(deployment.spec.replicas).toBeUndefined();

    for (const worker of workers) {
      const scalers = ofKind('ScaledObject').filter(
        (scaler) => scaler.spec.scaleTargetRef.name === worker.metadata.name,
      );
      expect(scalers, worker.metadata.name).toHaveLength(1);
      const skills = envOf(containerOf(worker)).WORKER_SKILLS?.split(',') ?? [];
      const triggers = scalers[0]?.spec.triggers as {
        type: string;
        metadata: { query: string; threshold: string };
      }[];
      expect(triggers.map((trigger) => trigger.type)).toEqual(['prometheus', 'prometheus']);
      // KEDA's CRD takes any string here; the HPA only these two (jobs per replica, age as a whole).
      expect(triggers.map((trigger) => (trigger as { metricType?: string }).metricType)).toEqual([
        'AverageValue',
        'Value',
      ]);
      const [depth, age] = triggers.map((trigger) => trigger.metadata.query);
      expect(depth).toContain('skillrun_queue_jobs{');
      // Prioritized jobs count as waiting; delayed ones (retries) are counted too.
      expect(depth).toContain('state=~"waiting|delayed|active"');
      expect(age).toContain('skillrun_queue_age_seconds{');
      // Zero replicas only where the pool's values ask for it, and then its workers keep its
      // versions invocable and the gateways export its queues (no worker does at zero).
      const pool = poolOf(worker);
      const toZero = pool.minReplicas === 0;
      expect(scalers[0]?.spec.minReplicaCount, worker.metadata.name).toBe(pool.minReplicas ?? 1);
      expect(envOf(containerOf(worker)).WORKER_SCALE_TO_ZERO, worker.metadata.name).toBe(
        toZero ? 'true' : undefined,
      );
      expect(scalers[0]?.spec.cooldownPeriod, worker.metadata.name).toBe(
        toZero ? (pool.cooldownSeconds ?? 300) : undefined,
      );
      for (const query of [depth, age]) {
        expect(query).toContain(`skill=~"${skills.map((skill) => skill.split('@')[0]).join('|')}"`);
        // Only this deployment's workers, as the worker ServiceMonitor names their job (and its
        // gateways, as theirs names them, for a pool that scales to zero).
        expect(query).toContain(
          toZero
            ? `namespace="${namespace}", job=~"skillrun-worker|skillrun-gateway"`
            : `namespace="${namespace}", job="skillrun-worker"`,
        );
      }
      expect(Number(triggers[0]?.metadata.threshold)).toBe(
        Number(envOf(containerOf(worker)).WORKER_CONCURRENCY),
      );
    }
    // No skill is hosted by two pools: their scalers would count its queue twice.
    const hosted = workers.flatMap((worker) => envOf(containerOf(worker)).WORKER_SKILLS?.split(',') ?? []);
    expect(new Set(hosted).size).toBe(hosted.length);
  });

  it("asks Prometheus only what it can parse, of metrics docs/operations.md documents (KEDA's queries through promtool)", async () => {
    const queries = ofKind('ScaledObject').flatMap((scaler) =>
      (scaler.spec.triggers as { metadata: { query?: string } }[]).flatMap(
        (trigger) => trigger.metadata.query ?? [],
      ),
    );
    expect(queries.length).toBeGreaterThanOrEqual(2 * workers.length);
    const operations = readRepoFile('docs/operations.md');
    for (const metric of new Set(queries.flatMap((query) => query.match(/\bskillrun_\w+/g) ?? []))) {
      expect(operations).toContain(`\`${metric}\``);
    }
    const folder = mkdtempSync(join(tmpdir(), 'skillrun-keda-'));
    try {
      const rules = queries.map((expr, index) => ({ record: `keda:query_${index}`, expr }));
      writeFileSync(join(folder, 'rules.yml'), stringify({ groups: [{ name: 'keda', rules }] }));
      await run('promtool', ['check', 'rules', join(folder, 'rules.yml')]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('keeps every pod in service during disruptions: a PodDisruptionBudget for each Deployment', () => {
    for (const deployment of deployments) {
      const budgets = ofKind('PodDisruptionBudget').filter((budget) =>
        selects(budget.spec.selector.matchLabels, podLabels(deployment)),
      );
      expect(budgets, deployment.metadata.name).toHaveLength(1);
      expect(budgets[0]?.spec.maxUnavailable).toBe(1);
    }
  });

  it('reads credentials only from Secrets, and sets only settings docs/configuration.md documents', () => {
    const plainEnv = [sharedConfig, ...deployments.map((deployment) => envOf(containerOf(deployment)))];
    const reference = readRepoFile('docs/configuration.md');
    for (const env of plainEnv) {
      for (const [name, value] of Object.entries(env)) {
        expect(SECRET_SETTINGS, name).not.toContain(name);
        if (name === 'REDIS_URL') expect(value, 'a password in REDIS_URL').not.toContain('@');
        expect(reference, `${name} is not in the configuration reference`).toContain(`| \`${name}\``);
      }
    }
    for (const deployment of deployments) {
      const secrets = (containerOf(deployment).envFrom ?? []).flatMap(
        (source) => source.secretRef?.name ?? [],
      );
      expect(secrets, deployment.metadata.name).toContain('skillrun-shared');
      expect(secrets, deployment.metadata.name).toContain(
        deployment === gateway ? 'skillrun-gateway' : 'skillrun-worker',
      );
    }
  });

  it('keeps its keys under a hash-tagged prefix', () => {
    expect(sharedConfig.KEY_PREFIX).toMatch(/\{[^{}]+\}/);
  });

  it('lets Prometheus scrape every replica, with the alerting rules and the dashboard beside', () => {
    for (const monitor of ofKind('ServiceMonitor')) {
      const service = named('Service', monitor.metadata.name);
      expect(monitor.spec.selector.matchLabels).toEqual(service.metadata.labels);
      const portNames = (service.spec.ports as { name: string }[]).map((port) => port.name);
      expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ path: '/metrics' })]);
      expect(portNames).toContain(monitor.spec.endpoints[0].port);
      expect(monitor.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack' });
    }
    // Each Service selects the pods of its component: the worker Service every pool's.
    expect(
      ofKind('ServiceMonitor')
        .map((monitor) => monitor.metadata.name)
        .sort(),
    ).toEqual(['skillrun-gateway', 'skillrun-worker']);
    for (const deployment of deployments) {
      const service = deployment === gateway ? 'skillrun-gateway' : 'skillrun-worker';
      expect(
        selects(named('Service', service).spec.selector, podLabels(deployment)),
        deployment.metadata.name,
      ).toBe(true);
    }

    const alerts = parse(readRepoFile('deploy/prometheus/alerts.yml')) as { groups: unknown[] };
    expect(named('PrometheusRule', 'skillrun-alerts').spec.groups).toEqual(alerts.groups);
    const dashboard = named('ConfigMap', 'skillrun-dashboard');
    expect(dashboard.metadata.labels?.grafana_dashboard).toBe('1');
    const original = readRepoFile('deploy/grafana/dashboards/skillrun.json');
    const uid = values.monitoring.grafanaDatasourceUid;
    // The compose dashboard, but for the datasource's uid and the jobs the ServiceMonitors name.
    const text = dashboard.data?.['skillrun.json'] ?? '';
    expect(text).toBe(
      original
        .replaceAll('"uid": "skillrun-prometheus"', `"uid": "${uid}"`)
        .replaceAll(/job=\\"(gateway|worker)\\"/g, 'job=\\"skillrun-$1\\"'),
    );
    const jobs = [...text.matchAll(/job=\\"([^\\]+)\\"/g)].map(([, job]) => job);
    expect(jobs.sort()).toEqual(['skillrun-gateway', 'skillrun-worker']);
    expect(JSON.parse(text).uid).toBe('skillrun');
  });
});

it('has an overlay for each way to reach Redis: a URL, Sentinels, a cluster', () => {
  expect(overlays).toEqual(['cluster', 'redis-url', 'sentinel']);
});

it('leaves Redis to the overlays in the base: without one, REDIS_URL comes from the shared Secret', () => {
  expect(
    Object.keys(sharedLiterals(join(repoRoot, BASE_DIR))).filter((name) => name.startsWith('REDIS_')),
  ).toEqual([]);
});

/** Where the processes look without REDIS_URL: the Sentinel and cluster overlays leave it to the Secret. */
const DEFAULT_REDIS_URL = CommonConfig.REDIS_URL.default;
const hostPorts = (list = '') =>
  list.split(',').map((entry) => {
    const [host = '', port] = entry.split(':');
    return { host, port: Number(port) };
  });

/** The Redis each overlay is for, from its settings, as the processes' configuration reads it. */
const REDIS_TARGETS: Record<string, (settings: Record<string, string>) => RedisTarget> = {
  'redis-url': (settings) => ({ url: settings.REDIS_URL ?? '' }),
  sentinel: (settings) => ({
    url: DEFAULT_REDIS_URL,
    sentinels: { nodes: hostPorts(settings.REDIS_SENTINELS), name: settings.REDIS_SENTINEL_NAME ?? '' },
  }),
  cluster: (settings) => ({
    url: DEFAULT_REDIS_URL,
    cluster: { nodes: hostPorts(settings.REDIS_CLUSTER_NODES) },
  }),
};

/** An overlay's kustomization.yaml in a folder of its own, its base found from there. */
function copyOfOverlay(overlay: string, edit: (kustomization: Record<string, unknown>) => void): string {
  const copy = mkdtempSync(join(tmpdir(), 'skillrun-overlay-'));
  const kustomization = kustomizationIn(join(repoRoot, OVERLAYS_DIR, overlay)) as Record<string, unknown>;
  kustomization.resources = [relative(copy, join(repoRoot, BASE_DIR))];
  edit(kustomization);
  writeFileSync(join(copy, 'kustomization.yaml'), stringify(kustomization));
  return copy;
}

describe.each(overlays)('deploy/kubernetes/overlays/%s', (overlay) => {
  const dir = join(repoRoot, OVERLAYS_DIR, overlay);
  const build = builds.find((each) => each.name === `${OVERLAYS_DIR}/${overlay}`);
  if (!build) throw new Error(`no build of ${overlay}`);
  const deployments = build.objects.filter((object) => object.kind === 'Deployment');
  const settings = sharedLiterals(dir);

  it('gives gateways and workers its Redis settings, which their configuration reads as the Redis it is for', () => {
    const expected = REDIS_TARGETS[overlay];
    if (!expected) throw new Error(`no Redis expected of ${overlay}`);
    expect(Object.keys(settings).some((name) => name.startsWith('REDIS_'))).toBe(true);
    expect(deployments.length).toBeGreaterThanOrEqual(3);
    for (const deployment of deployments) {
      const { name } = deployment.metadata;
      const env = startEnvOf(containerOf(deployment), build.objects);
      for (const [setting, value] of Object.entries(settings))
        expect(env[setting], `${name} ${setting}`).toBe(value);
      const config =
        name === 'skillrun-gateway' ? loadGatewayConfig(env) : loadWorkerConfig(env, { skillsDir: 'skills' });
      expect(config.redisTarget, name).toEqual(expected(settings));
    }
  });

  it('runs the image its images entry names', () => {
    const [image, ...others] = kustomizationIn(dir).images ?? [];
    expect(others).toEqual([]);
    for (const deployment of deployments) {
      expect(containerOf(deployment).image, deployment.metadata.name).toBe(
        `${image?.newName}:${image?.newTag}`,
      );
    }
  });

  it("takes every object, and KEDA's queries, to another namespace when its namespace line changes", () => {
    const copy = copyOfOverlay(overlay, (kustomization) => {
      kustomization.namespace = 'skillrun-elsewhere';
    });
    try {
      const moved = validatedObjects(kustomize(copy));
      expect(new Set(moved.map((object) => object.metadata.namespace))).toEqual(
        new Set(['skillrun-elsewhere']),
      );
      const queries = moved
        .filter((object) => object.kind === 'ScaledObject')
        .flatMap((scaler) =>
          (scaler.spec.triggers as { metadata: { query?: string } }[]).flatMap(
            (trigger) => trigger.metadata.query ?? [],
          ),
        );
      expect(queries.length).toBeGreaterThanOrEqual(2 * (deployments.length - 1));
      for (const query of queries) expect(query).toContain('{namespace="skillrun-elsewhere", ');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

it("makes what docs/kubernetes.md's More patches say, added to an overlay", () => {
  const docs = readRepoFile('docs/kubernetes.md');
  const section = docs.slice(docs.indexOf('### More patches'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const { patches } = parse(block) as { patches: unknown[] };
  const prometheus = /serverAddress, value: "([^"]+)"/.exec(block)?.[1];
  const copy = copyOfOverlay('redis-url', (kustomization) => {
    kustomization.patches = [...(kustomization.patches as unknown[]), ...patches];
  });
  try {
    const objects = validatedObjects(kustomize(copy));
    const ofKind = (kind: string) => objects.filter((object) => object.kind === kind);
    // Every trigger that asks Prometheus asks the other one.
    const addresses = ofKind('ScaledObject').flatMap((scaler) =>
      (scaler.spec.triggers as { type: string; metadata: { serverAddress?: string } }[])
        .filter((trigger) => trigger.type === 'prometheus')
        .map((trigger) => trigger.metadata.serverAddress),
    );
    expect(addresses.length).toBeGreaterThanOrEqual(7);
    expect(new Set(addresses)).toEqual(new Set([prometheus]));
    for (const object of [...ofKind('ServiceMonitor'), ...ofKind('PrometheusRule')]) {
      expect(object.metadata.labels?.release, object.metadata.name).toBe('prometheus');
    }
    const deployment = (name: string) => {
      const found = ofKind('Deployment').find((object) => object.metadata.name === name);
      if (!found) throw new Error(`no Deployment ${name}`);
      return containerOf(found);
    };
    const gateway = loadGatewayConfig(startEnvOf(deployment('skillrun-gateway'), objects));
    expect(gateway.OAUTH_ISSUER).toBe('https://auth.example.com/');
    expect(gateway.CONSOLE_OAUTH_CLIENT_ID).toBe('skillrun-console');
    const llm = deployment('skillrun-worker-llm');
    const env = envOf(llm);
    const limit = workerMemoryLimitMi({
      sandboxThreads: Number(env.SANDBOX_THREADS),
      sandboxThreadMemoryMb: Number(env.SANDBOX_THREAD_MEMORY_MB),
    } as WorkerPoolValues);
    expect([env.SANDBOX_THREAD_MEMORY_MB, llm.resources?.limits?.memory]).toEqual(['256', `${limit}Mi`]);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

describe('values the renderer refuses', () => {
  const base = baseValues;

  it('a cluster without a hash tag in the key prefix', () => {
    const values = { ...base(), redis: { mode: 'cluster', nodes: ['redis-0:6379'] }, keyPrefix: 'skillrun' };
    expect(() => buildManifests(values)).toThrow(/hash tag/);
  });

  it('a credential in plain settings', () => {
    expect(() => buildManifests({ ...base(), env: { ADMIN_API_KEY: 'x'.repeat(32) } })).toThrow(/Secret/);
  });

  it('a pool that would scale to zero without minReplicas 0, a pool without skills, a setting it does not know', () => {
    const pool = base().workerPools[0];
    // KEDA would keep one replica, so the mark would only hide a pool that is down from the alerts.
    expect(() =>
      buildManifests({ ...base(), workerPools: [{ ...pool, env: { WORKER_SCALE_TO_ZERO: 'true' } }] }),
    ).toThrow(/minReplicas: 0/);
    expect(() => buildManifests({ ...base(), workerPools: [{ ...pool, minReplicas: -1 }] })).toThrow(
      /minReplicas/,
    );
    expect(() => buildManifests({ ...base(), workerPools: [{ ...pool, skills: [] }] })).toThrow(/skills/);
    expect(() => buildManifests({ ...base(), replicas: 3 })).toThrow(/Invalid values/);
  });
});
