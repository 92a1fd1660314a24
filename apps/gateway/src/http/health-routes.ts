import { notReadyError, type ReadinessCheck } from '@skillrun/core/data';
import type { Router } from 'express';
import { measuredRouter } from '../metrics/measured-router';

/** GET /healthz (the router is mounted there): the process answers. */
export function livenessRoutes(): Router {
  const router = measuredRouter();
  router.get('', (_req, res) => {
    res.json({ status: 'ok' });
  });
  return router;
}

/**
 * GET /readyz (the router is mounted there): the process can take work (Redis answers, a queue
 * write goes through, Redis will not evict jobs); otherwise 503 naming the failing checks.
 */
export function readinessRoutes(readiness: ReadinessCheck): Router {
  const router = measuredRouter();
  router.get('', async (_req, res) => {
    const report = await readiness.run();
    if (!report.ready) throw notReadyError(report);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ready', checks: report.checks });
  });
  return router;
}
