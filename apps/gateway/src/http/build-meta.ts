import { ReadinessCheck } from '@skillrun/core/data';
import type { GatewayShared } from '../gateway-shared';
import { metricsRoutes } from '../metrics/metrics-routes';
import { livenessRoutes, readinessRoutes } from './health-routes';
import { metaPaths } from './meta-paths';
import type { Slice } from './slice';

/** The process itself: alive (/healthz), ready to take work (/readyz), and its metrics (/metrics). */
export function buildMeta(shared: GatewayShared): Slice {
  const { config } = shared;
  const readiness = new ReadinessCheck({
    redis: shared.redis,
    tags: shared.keys.shards.tags(),
    timeoutMs: config.REDIS_TIMEOUT_MS,
  });
  return {
    routes: [
      { path: '/healthz', router: livenessRoutes() },
      { path: '/readyz', router: readinessRoutes(readiness) },
      { path: '/metrics', router: metricsRoutes(shared.metrics) },
    ],
    paths: metaPaths,
  };
}
