import { ReadinessCheck, ReplicaCoverage, ReplicaCoverageWatch } from '@skillrun/core/data';
import type { GatewayShared } from '../gateway-shared';
import { metricsRoutes } from '../metrics/metrics-routes';
import { livenessRoutes, readinessRoutes } from './health-routes';
import { metaPaths } from './meta-paths';
import type { Slice } from './slice';

/**
 * The process itself: alive (/healthz), ready to take work (/readyz), and its metrics (/metrics).
 * With ACK_REPLICAS and Sentinels, readiness and the log also say whether a confirmed launch is on
 * every replica the Sentinels may promote (ReplicaCoverage).
 */
export function buildMeta(shared: GatewayShared): Slice {
  const { config } = shared;
  const { sentinels } = config.redisTarget;
  const coverage =
    sentinels && config.ACK_REPLICAS > 0
      ? new ReplicaCoverage({ sentinels, replicas: config.ACK_REPLICAS, timeoutMs: config.REDIS_TIMEOUT_MS })
      : undefined;
  const watch =
    coverage && sentinels ? new ReplicaCoverageWatch(coverage, sentinels, shared.logger) : undefined;
  const readiness = new ReadinessCheck({
    redis: shared.redis,
    tags: shared.keys.shards.tags(),
    timeoutMs: config.REDIS_TIMEOUT_MS,
    ...(coverage ? { coverage } : {}),
  });
  return {
    start: () => watch?.start(),
    close: () => watch?.close(),
    routes: [
      { path: '/healthz', router: livenessRoutes() },
      { path: '/readyz', router: readinessRoutes(readiness) },
      { path: '/metrics', router: metricsRoutes(shared.metrics) },
    ],
    paths: metaPaths,
  };
}
