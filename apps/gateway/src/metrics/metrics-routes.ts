import type { Router } from 'express';
import type { GatewayMetrics } from './gateway-metrics';
import { measuredRouter } from './measured-router';

/** GET /metrics (the router is mounted there): the gateway's metrics in Prometheus' text format. */
export function metricsRoutes(metrics: GatewayMetrics): Router {
  const router = measuredRouter();
  router.get('', async (_req, res) => {
    const text = await metrics.registry.metrics();
    res.setHeader('Cache-Control', 'no-store');
    res.type(metrics.registry.contentType).send(text);
  });
  return router;
}
