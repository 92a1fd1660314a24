import { ApprovalDecision, ApprovalListQuery, SchemaValidator } from '@skillrun/core';
import type { Request, Router } from 'express';
import { requireJson } from '../http/require-json';
import { measuredRouter } from '../metrics/measured-router';
import type { ApprovalDesk } from './approval-desk';

const listQuery = new SchemaValidator(ApprovalListQuery, 'query', { coerceTypes: true });
const decision = new SchemaValidator(ApprovalDecision, 'decision');

type ApprovalRequest = Request<{ executionId: string }>;
type LinkRequest = Request<{ token: string }>;

const VERDICTS = { approve: 'approved', reject: 'rejected' } as const;

/**
 * Everything under /approvals, mounted there: the pending approvals a caller may decide, approving
 * or rejecting one, and its one-time links.
 */
export function approvalRoutes(desk: ApprovalDesk): Router {
  const router = measuredRouter();
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.get('', async (req, res) => {
    res.json(await desk.list(listQuery.parse({ ...req.query }), req.headers));
  });
  router.get('/link/:token', async (req: LinkRequest, res) => {
    res.json(await desk.getByLink(req.params.token));
  });
  router.get('/:executionId', async (req: ApprovalRequest, res) => {
    res.json(await desk.get(req.params.executionId, req.headers));
  });
  router.post('/:executionId/link', async (req: ApprovalRequest, res) => {
    res.status(201).json(await desk.link(req.params.executionId, req.headers));
  });
  for (const [action, verdict] of Object.entries(VERDICTS)) {
    router.post(`/link/:token/${action}`, requireJson({ optional: true }), async (req: LinkRequest, res) => {
      const { reason } = decision.parse(req.body ?? {});
      res.json(await desk.decideByLink(req.params.token, verdict, reason));
    });
    router.post(
      `/:executionId/${action}`,
      requireJson({ optional: true }),
      async (req: ApprovalRequest, res) => {
        const { reason } = decision.parse(req.body ?? {});
        res.json(await desk.decide(req.params.executionId, verdict, reason, req.headers));
      },
    );
  }
  return router;
}
