import { notReadyError, type ReadinessCheck } from '@skillrun/core';
import { Router } from 'express';

/**
 * /healthz: the process answers. /readyz: it can take work (Redis answers, a queue write goes
 * through, Redis will not evict jobs); otherwise 503 naming the failing checks.
 */
export function healthRoutes(readiness: ReadinessCheck): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const report = await readiness.run();
    if (!report.ready) throw notReadyError(report);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ready', checks: report.checks });
  });
  return router;
}
