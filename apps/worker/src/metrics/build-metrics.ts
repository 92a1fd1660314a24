import {
  ConcurrencyGate,
  createRedis,
  QueueRegistry,
  ReadinessCheck,
  RedisKeys,
  SkillRegistry,
} from '@skillrun/core/data';
import { queueTelemetry } from '@skillrun/telemetry';
import type { Redis } from 'ioredis';
import type { HostedSkills } from '../skills/hosted-skills';
import type { WorkerShared } from '../worker-shared';
import { MetricsServer } from './metrics-server';
import { registerRedisGauges } from './redis-gauges';

/** What /metrics and /readyz answer with, on a connection of their own. */
export interface MetricsPart {
  server: MetricsServer;
  /** Closed at shutdown, after the server. */
  redis: Redis;
  queues: QueueRegistry;
}

/**
 * The hosted skills' metrics, the gauges read from Redis at scrape time, and the readiness check.
 * They use a connection of their own that fails fast: a scrape or probe while Redis is away must
 * neither hang nor pile up commands for later, as the workers' connection (which waits) would.
 */
export function buildMetrics(
  { config, metrics, liveness }: WorkerShared,
  hostedSkills: HostedSkills,
): MetricsPart {
  const skills = hostedSkills.all;
  const keys = new RedisKeys(config.KEY_PREFIX, config.REDIS_SHARDS);
  const timeoutMs = config.REDIS_TIMEOUT_MS;
  const redis = createRedis(config.redisTarget, { role: 'request', commandTimeoutMs: timeoutMs, liveness });
  const queues = new QueueRegistry(redis, config.KEY_PREFIX, queueTelemetry(), config.REDIS_SHARDS);
  const hosted = skills.map(({ definition }) => ({
    skill: definition.name,
    version: definition.version,
  }));
  metrics.host(hosted.map(({ skill }) => skill));
  const readiness = new ReadinessCheck({ redis, tags: keys.shards.tags(), timeoutMs });
  registerRedisGauges(metrics.registry, {
    hosted,
    queues,
    registry: new SkillRegistry(redis, keys),
    readiness,
    timeoutMs,
    gated: {
      skills: [
        ...new Set(
          skills.filter(({ definition }) => definition.concurrency).map(({ definition }) => definition.name),
        ),
      ],
      gate: new ConcurrencyGate(redis, keys),
    },
  });
  return { server: new MetricsServer(metrics.registry, readiness), redis, queues };
}
