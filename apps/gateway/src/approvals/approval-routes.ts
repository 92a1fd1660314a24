import { ApprovalDecision, ApprovalListQuery, SchemaValidator } from '@skillrun/core';
import type { Request, Router } from 'express';
import { linkedDeskRoutes } from '../http/linked-desk-routes';
import { requireJson } from '../http/require-json';
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
  const router = linkedDeskRoutes(desk, listQuery);
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
