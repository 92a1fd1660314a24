import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { nodeArgsOf } from '../../scripts/node-args.mjs';
import { repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

// What runs where Docker exists, checked without a Docker engine (docs/operations.md, "Running at scale").

const run = promisify(execFile);
const readRepoFile = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  container_name?: string;
  environment?: Record<string, string>;
  ports?: ({ published?: number | string } | string)[];
  volumes?: ({ source?: string; target?: string } | string)[];
  healthcheck?: { test?: string[] };
}
interface Compose {
  services: Record<string, ComposeService>;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { uid?: string };
  targets?: { expr?: string }[];
}
interface Dashboard {
  uid?: string;
  panels: Panel[];
  templating: { list: { query?: { query?: string } }[] };
}

const dashboard = JSON.parse(readRepoFile('deploy/grafana/dashboards/skillrun.json')) as Dashboard;
const panelsWithQueries = dashboard.panels.filter((panel) => panel.type !== 'row');

/** The host-port variables docs/operations.md documents, each given a port no default uses. */
const PORT_VARIABLES = {
  GATEWAY_PORT: '4101',
  PROMETHEUS_PORT: '4102',
  GRAFANA_PORT: '4103',
  JAEGER_PORT: '4104',
};

/** A service's mounts, from either form `docker-compose config` prints (v1 strings, v2 objects). */
function mounts(service: ComposeService | undefined): { source?: string; target?: string }[] {
  return (service?.volumes ?? []).map((volume) => {
    if (typeof volume !== 'string') return volume;
    const [source, target] = volume.split(':');
    return { source, target };
  });
}

/** The host paths a service bind-mounts (compose makes them absolute; named volumes are not). */
const bindSources = (service: ComposeService | undefined) =>
  mounts(service).flatMap(({ source }) => (source !== undefined && isAbsolute(source) ? [source] : []));

describe('docker-compose.yml', () => {
  let compose: Compose;

  beforeAll(async () => {
    const { stdout, stderr } = await run('docker-compose', ['-f', 'docker-compose.yml', 'config'], {
      cwd: repoRoot,
      env: { ...process.env, ...PORT_VARIABLES },
    });
    expect(stderr, 'docker-compose config warned').toBe('');
    compose = parse(stdout) as Compose;
  });

  it('names a build or an image for every service', () => {
    const services = Object.entries(compose.services);
    expect(services.map(([name]) => name)).toEqual(
      expect.arrayContaining(['redis', 'gateway', 'worker', 'prometheus', 'grafana', 'jaeger']),
    );
    for (const [name, service] of services) {
      expect(service.build ?? service.image, `${name} has neither build nor image`).toBeDefined();
    }
  });

  it('mounts only files that exist in the repository, Prometheus and Grafana configured from deploy/', () => {
    const sources = Object.values(compose.services).flatMap(bindSources);
    for (const source of sources) expect(existsSync(source), `${source} is missing`).toBe(true);
    expect(bindSources(compose.services.prometheus)).toContain(
      join(repoRoot, 'deploy/prometheus/prometheus.yml'),
    );
    expect(bindSources(compose.services.grafana)).toEqual(
      expect.arrayContaining([
        join(repoRoot, 'deploy/grafana/provisioning'),
        join(repoRoot, 'deploy/grafana/dashboards'),
      ]),
    );
  });

  it('publishes every host port through its variable, and no other', () => {
    const published = Object.values(compose.services).flatMap((service) =>
      (service.ports ?? []).map((port) => (typeof port === 'string' ? port.split(':')[0] : port.published)),
    );
    expect(published.map(String).sort()).toEqual(Object.values(PORT_VARIABLES).sort());
  });

  it('lets gateways and workers scale: no fixed name or host port, gateway-lb in front of every gateway', () => {
    for (const name of ['gateway', 'worker']) {
      const service = compose.services[name];
      expect(service?.container_name, name).toBeUndefined();
      expect(service?.ports ?? [], name).toEqual([]);
    }
    expect(compose.services.worker?.environment?.METRICS_PORT).toBe('9464');
    // On every interface of the container: the defaults (127.0.0.1) would hide them from nginx and Prometheus.
    expect(compose.services.gateway?.environment?.HOST).toBe('0.0.0.0');
    expect(compose.services.worker?.environment?.METRICS_HOST).toBe('0.0.0.0');
    expect(compose.services.gateway?.healthcheck?.test?.join(' ')).toContain('127.0.0.1:3000/healthz');
    expect(compose.services.worker?.healthcheck?.test?.join(' ')).toContain('127.0.0.1:9464/healthz');
    const upstream = `server gateway:${compose.services.gateway?.environment?.PORT} resolve;`;
    expect(readRepoFile('deploy/nginx/gateway-lb.conf')).toContain(upstream);
  });

  it('starts gateways and workers with the command lines of npm run start:gateway and start:worker', () => {
    expect(compose.services.gateway?.command).toEqual(['node', ...nodeArgsOf('start:gateway')]);
    expect(compose.services.worker?.command).toEqual(['node', ...nodeArgsOf('start:worker')]);
  });

  it('sends the traces of gateways and workers to the trace viewer, which takes OTLP over HTTP', () => {
    for (const name of ['gateway', 'worker']) {
      expect(compose.services[name]?.environment?.OTEL_EXPORTER_OTLP_ENDPOINT, name).toBe(
        'http://jaeger:4318',
      );
    }
    expect(compose.services.jaeger?.environment?.COLLECTOR_OTLP_ENABLED).toBe('true');
  });

  it('runs Redis as a queue needs it: append-only file, noeviction, a volume, a healthcheck', () => {
    const redis = compose.services.redis;
    const command = redis?.command?.join(' ');
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(mounts(redis)).toEqual([expect.objectContaining({ source: 'redis-data', target: '/data' })]);
    expect(redis?.healthcheck?.test).toBeDefined();
  });

  it('scrapes every replica: Prometheus finds gateway and worker by DNS on the ports they listen on', async () => {
    await run('promtool', ['check', 'config', 'deploy/prometheus/prometheus.yml'], { cwd: repoRoot });
    const prometheus = parse(readRepoFile('deploy/prometheus/prometheus.yml')) as {
      scrape_configs: { job_name: string; dns_sd_configs?: unknown[] }[];
    };
    const job = (name: string) => prometheus.scrape_configs.find((config) => config.job_name === name);
    expect(job('gateway')?.dns_sd_configs).toEqual([
      expect.objectContaining({
        names: ['gateway'],
        type: 'A',
        port: Number(compose.services.gateway?.environment?.PORT),
      }),
    ]);
    expect(job('worker')?.dns_sd_configs).toEqual([
      expect.objectContaining({
        names: ['worker'],
        type: 'A',
        port: Number(compose.services.worker?.environment?.METRICS_PORT),
      }),
    ]);
  });

  it('provisions Grafana: the datasource the dashboard names, the dashboards where compose mounts them', () => {
    const datasources = parse(readRepoFile('deploy/grafana/provisioning/datasources/prometheus.yml')) as {
      datasources: { uid: string; url: string }[];
    };
    const providers = parse(readRepoFile('deploy/grafana/provisioning/dashboards/skillrun.yml')) as {
      providers: { options: { path: string } }[];
    };
    const usedUids = new Set(panelsWithQueries.map((panel) => panel.datasource?.uid));
    expect([...usedUids]).toEqual([datasources.datasources[0]?.uid]);
    expect(datasources.datasources[0]?.url).toBe('http://prometheus:9090');
    expect(mounts(compose.services.grafana)).toContainEqual(
      expect.objectContaining({
        source: join(repoRoot, 'deploy/grafana/dashboards'),
        target: providers.providers[0]?.options.path,
      }),
    );
  });
});

describe('Dockerfile', () => {
  const dockerfile = readRepoFile('Dockerfile').replace(/\\\n/g, ' ');
  const instructions = dockerfile
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages = instructions.filter((line) => /^FROM\s/i.test(line));
  const copiedPaths = instructions
    .filter((line) => /^COPY\s/i.test(line) && !/--from=/.test(line))
    .flatMap((line) => line.split(/\s+/).slice(1, -1));

  it('listens on every interface of the container (outside one, the defaults keep to 127.0.0.1)', () => {
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const env = /^ENV\s+(.+)$/m.exec(finalStage)?.[1]?.split(/\s+/) ?? [];
    expect(env).toEqual(expect.arrayContaining(['HOST=0.0.0.0', 'METRICS_HOST=0.0.0.0']));
  });

  it('builds in stages and runs as a user other than root', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const user = /^USER\s+(\S+)/m.exec(finalStage)?.[1];
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
  });

  it('builds the bundles in the image and runs the gateway as npm run start:gateway does', () => {
    expect(instructions).toContain('RUN npm run build');
    const cmd = instructions.filter((line) => /^CMD\s/.test(line)).at(-1);
    expect(JSON.parse(cmd?.replace(/^CMD\s+/, '') ?? 'null')).toEqual([
      'node',
      ...nodeArgsOf('start:gateway'),
    ]);
  });

  it('copies only paths that exist, every workspace manifest among them', () => {
    for (const path of copiedPaths) expect(existsSync(join(repoRoot, path)), path).toBe(true);
    const { workspaces } = JSON.parse(readRepoFile('package.json')) as { workspaces: string[] };
    const manifests = workspaces.flatMap((pattern) => {
      const folder = pattern.replace(/\/\*$/, '');
      return readdirSync(join(repoRoot, folder))
        .map((name) => `${folder}/${name}/package.json`)
        .filter((manifest) => existsSync(join(repoRoot, manifest)));
    });
    expect(copiedPaths).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', ...manifests]));
  });
});

const PROMQL_KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset']);

/**
 * The metric names a PromQL expression reads: what is left once strings, label matchers, ranges,
 * grouping clauses and Grafana variables are taken out, minus function names and keywords.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\$\w+/g, '');
  return [...bare.matchAll(/(?<![\w.])[a-zA-Z_]\w*\b(?!\s*\()/g)]
    .map(([name]) => name)
    .filter((name) => !PROMQL_KEYWORDS.has(name));
}

/** Every series name a /metrics text can hold: a histogram `x` is x_bucket, x_sum and x_count. */
function exportedNames(exposition: string): string[] {
  return [...exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name = '', type]) => {
    if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
    if (type === 'summary') return [name, `${name}_sum`, `${name}_count`];
    return [name];
  });
}

describe('the Grafana dashboard', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker();
  });
  afterAll(() => system?.stop());

  it('has a fixed uid, and every panel a query', () => {
    expect(dashboard.uid).toBe('skillrun');
    for (const panel of panelsWithQueries) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(target.expr, panel.title).toMatch(/\w/);
    }
  });

  it('gives each panel an id of its own and a place of its own: no two overlap on the grid', () => {
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    const cells = new Map<string, string>();
    for (const { title, gridPos } of dashboard.panels) {
      for (let x = gridPos.x; x < gridPos.x + gridPos.w; x++) {
        for (let y = gridPos.y; y < gridPos.y + gridPos.h; y++) {
          expect(cells.get(`${x},${y}`), `${title} at ${x},${y}`).toBeUndefined();
          cells.set(`${x},${y}`, title);
        }
      }
      expect(gridPos.x + gridPos.w, title).toBeLessThanOrEqual(24);
    }
  });

  it('shows 0, not "No data", where nothing happened: each ratio, stat and total falls back to vector(0)', () => {
    const expressions = panelsWithQueries.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({ panel, expr: target.expr ?? '' })),
    );
    const ratios = expressions.filter(({ expr }) => / \/ /.test(expr));
    expect(ratios.length).toBeGreaterThanOrEqual(3);
    for (const { panel, expr } of ratios) {
      // A missing numerator counts as 0, a zero denominator (nothing ran) gives 0 rather than NaN.
      expect(expr, panel.title).toMatch(/^\(.* or vector\(0\)\) \/ clamp_min\(.*, 1e-9\) or vector\(0\)$/);
    }
    for (const { panel, expr } of expressions.filter(({ panel }) => panel.type === 'stat')) {
      expect(expr, panel.title).toMatch(/ or vector\(0\)$/);
    }
  });

  it('queries what Prometheus can parse: every expression, as a recording rule, passes promtool', async () => {
    const records = panelsWithQueries.flatMap((panel, index) =>
      (panel.targets ?? []).map((target, targetIndex) => ({
        record: `dashboard:panel_${index}_${targetIndex}`,
        // Grafana's variables, as Grafana would fill them in.
        expr: (target.expr ?? '').replaceAll('$__rate_interval', '1m').replaceAll('$skill', '.*'),
      })),
    );
    const folder = mkdtempSync(join(tmpdir(), 'skillrun-dashboard-'));
    try {
      const file = join(folder, 'dashboard-rules.yml');
      writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules: records }] }));
      await run('promtool', ['check', 'rules', file]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('queries only metrics the gateway and the worker export after real traffic', async () => {
    const { client } = system;
    for (const text of ['one', 'two', 'three']) {
      expect((await client.run('echo', { text })).final.status).toBe('completed');
    }
    expect((await client.run('thrower', {})).final.status).toBe('failed');
    expect((await client.invoke('echo', { count: 2 })).status).toBe(400);

    const ready = await system.workers[0]?.waitForLog((line) => line.msg === 'worker ready');
    const scrapes = await Promise.all(
      [`${system.gateway.url}/metrics`, `http://127.0.0.1:${ready?.metrics_port}/metrics`].map(
        async (url) => {
          const response = await fetch(url);
          expect(response.status, url).toBe(200);
          return response.text();
        },
      ),
    );
    // `up` is not exported: Prometheus records it for every target it scrapes.
    const exported = new Set(['up', ...scrapes.flatMap(exportedNames)]);

    const queries = [
      ...panelsWithQueries.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
      // label_values(metric, label): the label is no metric.
      ...dashboard.templating.list.map((variable) => variable.query?.query?.replace(/,\s*\w+\)$/, ')')),
    ];
    const used = new Set(queries.flatMap((query) => metricNames(query ?? '')));
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
  });
});
