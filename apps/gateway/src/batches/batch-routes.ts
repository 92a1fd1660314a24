import type { Request, Router } from 'express';
import { goneSignal } from '../http/gone-signal';
import { requireJson } from '../http/require-json';
import { requestedWait } from '../http/wait-preference';
import { measuredRouter } from '../metrics/measured-router';
import type { BatchDesk } from './batch-desk';

type BatchRequest = Request<{ batchId: string }>;

/** Everything under /batches, mounted there: starting a batch, reading it (and waiting), canceling it. */
export function batchRoutes(desk: BatchDesk, baseUrl: string): Router {
  const router = measuredRouter();
  router.use(function noStore(_req, res, next) {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.post('', requireJson(), async (req, res) => {
    const { accepted, headers } = await desk.submit({
      body: req.body,
      headers: req.headers,
      address: req.ip ?? req.socket.remoteAddress ?? 'unknown',
    });
    res.set(headers);
    res.status(202).location(`${baseUrl}/batches/${accepted.batch_id}`).json(accepted);
  });
  router.get('/:batchId', async (req: BatchRequest, res) => {
    const seconds = requestedWait(req.query, req.get('prefer'));
    const { view, appliedWaitSeconds } = await desk.read(
      req.params.batchId,
      req.headers,
      seconds === undefined ? undefined : { seconds, signal: goneSignal(res) },
    );
    // Nobody is left to answer when the client went away.
    if (res.closed) return;
    if (appliedWaitSeconds !== undefined) res.setHeader('Preference-Applied', `wait=${appliedWaitSeconds}`);
    if (!view.ended) res.setHeader('Retry-After', '1');
    res.json(view);
  });
  router.post('/:batchId/cancel', async (req: BatchRequest, res) => {
    res.json(await desk.cancel(req.params.batchId, req.headers));
  });
  return router;
}
