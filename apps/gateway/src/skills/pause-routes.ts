import type { Request, Router } from 'express';
import type { Identities } from '../auth/identities';
import type { SkillParams } from './discovery-routes';
import type { SkillPauser } from './skill-pauser';

/**
 * POST /skills/{id}/pause and /resume (ours), on the /skills router: an operator holds a skill's
 * executions in its queues, then lets them run.
 */
export function pauseRoutes(router: Router, pauser: SkillPauser, identities: Identities): void {
  for (const action of ['pause', 'resume'] as const) {
    router.post(`/:skillId/${action}`, async (req: Request<SkillParams>, res) => {
      const state = await pauser[action](req.params.skillId, await identities.of(req.headers));
      res.setHeader('Cache-Control', 'no-store');
      res.json(state);
    });
  }
}
