import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** host:port, as REDIS_SENTINELS and REDIS_CLUSTER_NODES take them. */
const HostPort = Type.String({ pattern: '^[^\\s,:]+:[0-9]+$' });
/** Extra environment variables, for any setting of docs/configuration.md. */
const Env = Type.Record(Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }), Type.String());
const Quantity = Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?(m|Ki|Mi|Gi)?$' });
const Resources = Type.Object(
  {
    requests: Type.Optional(Type.Object({ cpu: Type.Optional(Quantity), memory: Type.Optional(Quantity) })),
    limits: Type.Optional(Type.Object({ cpu: Type.Optional(Quantity), memory: Type.Optional(Quantity) })),
  },
  { additionalProperties: false },
);

const Redis = Type.Union([
  Type.Object(
    {
      mode: Type.Literal('url'),
      /** Without it, REDIS_URL comes from the shared Secret (a URL with a password belongs there). */
      url: Type.Optional(Type.String({ pattern: '^rediss?://' })),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      mode: Type.Literal('sentinel'),
      sentinels: Type.Array(HostPort, { minItems: 1 }),
      masterName: Type.String({ minLength: 1 }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      mode: Type.Literal('cluster'),
      nodes: Type.Array(HostPort, { minItems: 1 }),
    },
    { additionalProperties: false },
  ),
]);

/** A worker pool: one Deployment hosting a set of skills, autoscaled by KEDA on their queues. */
const WorkerPool = Type.Object(
  {
    name: Type.String({ pattern: '^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$' }),
    /** WORKER_SKILLS: skill ids (every version) or id@version. */
    skills: Type.Array(Type.String({ pattern: '^[A-Za-z0-9_.-]+(@[0-9A-Za-z.+-]+)?$' }), { minItems: 1 }),
    concurrency: Type.Integer({ minimum: 1, maximum: 1000, default: 16 }),
    /** SANDBOX_THREADS: set here, as a container sees the node's cores, not its own share. */
    sandboxThreads: Type.Integer({ minimum: 1, default: 1 }),
    sandboxThreadMemoryMb: Type.Integer({ minimum: 16, default: 512 }),
    shutdownGraceMs: Type.Integer({ minimum: 1000, default: 30000 }),
    /**
     * 0 scales the pool to zero when idle: its workers run with WORKER_SCALE_TO_ZERO, so that its
     * versions stay invocable with no worker alive, and KEDA wakes it on the gateways' metrics.
     */
    minReplicas: Type.Integer({ minimum: 0, default: 1 }),
    /** With minReplicas 0: how long the queues stay empty before the last replica goes (KEDA's cooldownPeriod). */
    cooldownSeconds: Type.Integer({ minimum: 0, default: 300 }),
    maxReplicas: Type.Integer({ minimum: 1, default: 10 }),
    /** Scale out while the oldest job in line has waited longer than this. */
    targetQueueAgeSeconds: Type.Integer({ minimum: 1, default: 10 }),
    /** Scale out while jobs (waiting, delayed, running) per replica exceed this; WORKER_CONCURRENCY by default. */
    targetJobsPerReplica: Type.Optional(Type.Integer({ minimum: 1 })),
    resources: Type.Optional(Resources),
    env: Type.Optional(Env),
  },
  { additionalProperties: false },
);

export const ValuesSchema = Type.Object(
  {
    /** Prefix of every object's name; also the app.kubernetes.io/instance label. */
    name: Type.String({ pattern: '^[a-z]([a-z0-9-]{0,20}[a-z0-9])?$', default: 'skillrun' }),
    namespace: Type.String({ pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$' }),
    image: Type.String({ minLength: 1 }),
    imagePullPolicy: Type.Union([Type.Literal('Always'), Type.Literal('IfNotPresent')], {
      default: 'IfNotPresent',
    }),
    redis: Redis,
    /** KEY_PREFIX; on a cluster it must hold a {hash tag}. */
    keyPrefix: Type.String({ minLength: 1, default: '{skillrun}' }),
    /** Non-secret settings of both (docs/configuration.md). */
    env: Type.Optional(Env),
    /**
     * Secrets, created beforehand (docs/kubernetes.md), each read whole as environment variables:
     * `shared` by gateways and workers (REDIS_URL with its password, REDIS_SENTINEL_PASSWORD,
     * PROVIDER_SECRETS_KEY), `gateway` (ADMIN_API_KEY, TASK_LINK_SECRET) and `worker` (LLM_API_KEY).
     */
    secrets: Type.Object(
      { shared: Type.String(), gateway: Type.String(), worker: Type.String() },
      { additionalProperties: false },
    ),
    gateway: Type.Object(
      {
        publicBaseUrl: Type.String({ pattern: '^https?://' }),
        minReplicas: Type.Integer({ minimum: 1, default: 2 }),
        maxReplicas: Type.Integer({ minimum: 1, default: 10 }),
        targetCpuUtilization: Type.Integer({ minimum: 1, maximum: 100, default: 70 }),
        /**
         * Also scale on HTTP requests per second per replica, read from Prometheus: KEDA then makes
         * the gateway's HPA (on CPU and requests) in place of a plain one on CPU.
         */
        targetRequestsPerSecond: Type.Optional(Type.Integer({ minimum: 1 })),
        /** TRUST_PROXY: the ingress controller's addresses (default: private ranges). */
        trustProxy: Type.String({ default: 'uniquelocal' }),
        resources: Type.Optional(Resources),
        env: Type.Optional(Env),
      },
      { additionalProperties: false },
    ),
    workerPools: Type.Array(WorkerPool, { minItems: 1 }),
    /** The Prometheus KEDA asks for the queue metrics. */
    prometheusUrl: Type.String({ pattern: '^https?://' }),
    monitoring: Type.Object(
      {
        /** Labels a prometheus-operator selects ServiceMonitors and PrometheusRules by. */
        labels: Type.Record(Type.String(), Type.String(), { default: {} }),
        /** The uid of the Prometheus datasource in your Grafana (the dashboard names it). */
        grafanaDatasourceUid: Type.String({ default: 'prometheus' }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false },
);

export type Values = Static<typeof ValuesSchema>;
export type WorkerPoolValues = Values['workerPools'][number];

/** Settings that hold credentials: refused in plain values, they go in the Secrets. */
const SECRET_SETTINGS = [
  'ADMIN_API_KEY',
  'LLM_API_KEY',
  'PROVIDER_SECRETS_KEY',
  'TASK_LINK_SECRET',
  'REDIS_SENTINEL_PASSWORD',
  'REDIS_URL',
];

/** Values with their defaults, checked; throws a message naming every problem. */
export function parseValues(input: unknown): Values {
  const values = Value.Default(ValuesSchema, Value.Clone(input));
  const problems = [...Value.Errors(ValuesSchema, values)].map(
    (error) => `${error.path || '/'}: ${error.message}`,
  );
  if (problems.length > 0) throw new Error(`Invalid values:\n${[...new Set(problems)].join('\n')}`);
  const checked = values as Values;
  const envs = [checked.env, checked.gateway.env, ...checked.workerPools.map((pool) => pool.env)];
  for (const name of envs.flatMap((env) => Object.keys(env ?? {}))) {
    if (SECRET_SETTINGS.includes(name))
      throw new Error(`Invalid values: ${name} goes in a Secret, not in env`);
  }
  if (checked.redis.mode === 'cluster' && !/\{[^{}]+\}/.test(checked.keyPrefix)) {
    throw new Error(
      `Invalid values: on a Redis Cluster keyPrefix must hold a {hash tag} (BullMQ's keys share a slot): ${checked.keyPrefix}`,
    );
  }
  const names = checked.workerPools.map((pool) => pool.name);
  if (new Set(names).size !== names.length) throw new Error('Invalid values: worker pool names repeat');
  for (const pool of checked.workerPools) {
    if (pool.maxReplicas < pool.minReplicas) {
      throw new Error(`Invalid values: pool ${pool.name} has maxReplicas under minReplicas`);
    }
    if (pool.minReplicas > 0 && pool.env?.WORKER_SCALE_TO_ZERO !== undefined) {
      throw new Error(
        `Invalid values: pool ${pool.name} sets WORKER_SCALE_TO_ZERO; minReplicas: 0 sets it, and only then does KEDA let the pool reach zero`,
      );
    }
  }
  return checked;
}
