import { Router } from 'express';
import type { GatewayMetrics } from './gateway-metrics';

/** GET /metrics: the gateway's metrics in Prometheus' text format. */
export function metricsRoutes(metrics: GatewayMetrics): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    const text = await metrics.registry.metrics();
    res.setHeader('Cache-Control', 'no-store');
    res.type(metrics.registry.contentType).send(text);
  });
  return router;
}
