import { SchemaValidator, SkillApprovalUpdate } from '@skillrun/core';
import type { Request, Router } from 'express';
import type { Identities } from '../auth/identities';
import { requireJson } from '../http/require-json';
import type { SkillParams } from './discovery-routes';
import type { SkillApprovals } from './skill-approvals';

const update = new SchemaValidator(SkillApprovalUpdate, 'approval policy');

/** GET and PUT /skills/{id}/approval (ours), on the /skills router: an operator's approval policy. */
export function approvalRoutes(router: Router, approvals: SkillApprovals, identities: Identities): void {
  router.get('/:skillId/approval', async (req: Request<SkillParams>, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(await approvals.get(req.params.skillId, await identities.of(req.headers)));
  });
  router.put('/:skillId/approval', requireJson(), async (req: Request<SkillParams>, res) => {
    const body = update.parse(req.body);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await approvals.set(req.params.skillId, body, await identities.of(req.headers)));
  });
}
