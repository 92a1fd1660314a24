import type { Request, Router } from 'express';
import type { Identities } from '../auth/identities';
import { assertAdmin } from '../auth/require-admin';
import type { SkillParams } from './discovery-routes';
import type { RolloutControl } from './rollout-control';

interface PinParams extends SkillParams {
  caller: string;
}

const WHAT = 'A rollout';

/**
 * On the /skills router, for admins (ours): GET, POST (ramp) and DELETE (roll back)
 * /skills/{id}/rollout, and PUT and DELETE /skills/{id}/pins/{caller}; each answers the rollout.
 */
export function rolloutRoutes(router: Router, control: RolloutControl, identities: Identities): void {
  const admin = async (req: Pick<Request, 'headers'>) => assertAdmin(await identities.of(req.headers), WHAT);
  router.get('/:skillId/rollout', async (req: Request<SkillParams>, res) => {
    await admin(req);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await control.show(req.params.skillId));
  });
  router.post('/:skillId/rollout', async (req: Request<SkillParams>, res) => {
    res.json(await control.ramp(req.params.skillId, req.body, await admin(req)));
  });
  router.delete('/:skillId/rollout', async (req: Request<SkillParams>, res) => {
    res.json(await control.rollback(req.params.skillId, await admin(req)));
  });
  router.put('/:skillId/pins/:caller', async (req: Request<PinParams>, res) => {
    const { skillId, caller } = req.params;
    res.json(await control.pin(skillId, caller, req.body, await admin(req)));
  });
  router.delete('/:skillId/pins/:caller', async (req: Request<PinParams>, res) => {
    await admin(req);
    res.json(await control.unpin(req.params.skillId, req.params.caller));
  });
}
