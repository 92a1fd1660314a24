import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { envList, metadataOf, probesOn } from './pod-parts';
import { prometheusTrigger } from './prometheus-trigger';
import type { Values, WorkerPoolValues } from './values';
import { deploymentOf, disruptionBudgetOf, type Workload } from './workload';

export const METRICS_PORT = 9464;

/** What a worker needs besides its sandbox threads: 330 MB peak RSS measured draining (docs/performance.md, row 5). */
const WORKER_BASE_MEMORY_MI = 384;
/** After the grace, closing the queues and withdrawing from the registry. */
const CLOSE_MARGIN_SECONDS = 15;

export function workerPoolName(values: Values, pool: WorkerPoolValues): string {
  return `${values.name}-worker-${pool.name}`;
}

/** The skill ids a pool hosts (WORKER_SKILLS may name id@version). */
export function poolSkillIds(pool: WorkerPoolValues): string[] {
  return [...new Set(pool.skills.map((skill) => skill.split('@')[0] ?? skill))];
}

/** A pool at zero replicas: its versions stay invocable, and the gateways export their queues. */
export function scalesToZero(pool: WorkerPoolValues): boolean {
  return pool.minReplicas === 0;
}

/**
 * The queue metrics as KEDA asks Prometheus for them: the pool's skills, in this namespace, from
 * this deployment's workers (the ServiceMonitor's job is the worker Service), and from its
 * gateways for a pool that scales to zero, as no worker of it exports them at zero replicas.
 */
function selectorOf(values: Values, pool: WorkerPoolValues, extra = ''): string {
  const skills = poolSkillIds(pool)
    .map((id) => id.replace(/[.\\]/g, '\\\\$&'))
    .join('|');
  const job = scalesToZero(pool)
    ? `job=~"${values.name}-worker|${values.name}-gateway"`
    : `job="${values.name}-worker"`;
  return `{namespace="${values.namespace}", ${job}, skill=~"${skills}"${extra}}`;
}

/**
 * Jobs of the pool's skills that need a slot now or soon: waiting (prioritized included), delayed
 * (retries in their backoff) and running. Every worker hosting a version reports the same queue: max.
 */
export function queueDepthQuery(values: Values, pool: WorkerPoolValues): string {
  const selector = selectorOf(values, pool, ', state=~"waiting|delayed|active"');
  return `sum(max by (skill, version, state) (skillrun_queue_jobs${selector})) or vector(0)`;
}

/** How long the oldest job in line of the pool's skills has waited. */
export function queueAgeQuery(values: Values, pool: WorkerPoolValues): string {
  return `max(skillrun_queue_age_seconds${selectorOf(values, pool)}) or vector(0)`;
}

/**
 * Memory a pool's worker may reach: its own, plus each sandbox thread's limit twice over (its
 * heap, and as much again in buffers outside it: docs/skills.md, "Isolation").
 */
export function workerMemoryLimitMi(pool: WorkerPoolValues): number {
  return WORKER_BASE_MEMORY_MI + pool.sandboxThreads * 2 * pool.sandboxThreadMemoryMb;
}

export function workerPoolObjects(values: Values, pool: WorkerPoolValues) {
  const name = workerPoolName(values, pool);
  const workload: Workload = { name, component: 'worker', pool: pool.name };
  const deployment = deploymentOf(values, workload, {
    // SIGTERM: no new jobs, SHUTDOWN_GRACE_MS for the running ones, then they go back to
    // their queue; the kill comes only after that.
    terminationGracePeriodSeconds: Math.ceil(pool.shutdownGraceMs / 1000) + CLOSE_MARGIN_SECONDS,
    port: { name: 'metrics', containerPort: METRICS_PORT },
    container: {
      env: [
        // The pod's name: the worker's id in the registry and the logs.
        { name: 'WORKER_ID', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        ...envList({
          // Every interface of the pod: the kubelet's probes and Prometheus come from outside it.
          METRICS_HOST: '0.0.0.0',
          METRICS_PORT: String(METRICS_PORT),
          WORKER_SKILLS: pool.skills.join(','),
          WORKER_CONCURRENCY: String(pool.concurrency),
          SANDBOX_THREADS: String(pool.sandboxThreads),
          SANDBOX_THREAD_MEMORY_MB: String(pool.sandboxThreadMemoryMb),
          SHUTDOWN_GRACE_MS: String(pool.shutdownGraceMs),
          ...(scalesToZero(pool) ? { WORKER_SCALE_TO_ZERO: 'true' } : {}),
          ...(pool.env ?? {}),
        }),
      ],
      ...probesOn('metrics', 60),
      resources: {
        requests: { cpu: `${pool.sandboxThreads * 1000}m`, memory: `${WORKER_BASE_MEMORY_MI}Mi` },
        limits: { memory: `${workerMemoryLimitMi(pool)}Mi` },
        ...(pool.resources ?? {}),
      },
    },
  });
  const scaledObject = new ScaledObject({
    metadata: metadataOf(values, name, 'worker', pool.name),
    spec: {
      scaleTargetRef: { name },
      minReplicaCount: pool.minReplicas,
      maxReplicaCount: pool.maxReplicas,
      pollingInterval: 15,
      // KEDA itself takes an idle pool from one replica to none, once both triggers have read 0
      // (no job waiting, delayed or running) for this long, and back to one at the first job.
      ...(scalesToZero(pool) ? { cooldownPeriod: pool.cooldownSeconds } : {}),
      advanced: {
        horizontalPodAutoscalerConfig: {
          // Scale in slowly: a drained worker's slots are gone for SHUTDOWN_GRACE_MS.
          behavior: { scaleDown: { stabilizationWindowSeconds: 300 } },
        },
      },
      triggers: [
        // ceil(jobs ÷ slots per replica) replicas.
        prometheusTrigger(values, {
          name: 'queue-depth',
          metricType: 'AverageValue',
          query: queueDepthQuery(values, pool),
          threshold: pool.targetJobsPerReplica ?? pool.concurrency,
        }),
        // More replicas, in proportion, while the oldest job in line waits past the target.
        prometheusTrigger(values, {
          name: 'queue-age',
          metricType: 'Value',
          query: queueAgeQuery(values, pool),
          threshold: pool.targetQueueAgeSeconds,
        }),
      ],
    },
  });
  return [deployment, scaledObject, disruptionBudgetOf(values, workload)];
}
