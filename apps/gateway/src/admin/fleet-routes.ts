import { SkillError } from '@skillrun/core';
import type { RequestHandler, Router } from 'express';
import type { Authenticator } from '../auth/authenticator';
import { isAdmin } from '../auth/identity';
import { authRequired } from '../auth/skill-access';
import { orServiceUnavailable } from '../http/or-service-unavailable';
import { measuredRouter } from '../metrics/measured-router';
import type { FleetOverview } from './fleet-overview';

/**
 * GET /admin/fleet (the router is mounted there): the workers alive, what each hosts, and each
 * hosted version's queue depth and age, for admins (the console's workers and queues page).
 */
export function fleetRoutes(fleet: FleetOverview, authenticator: Authenticator): Router {
  const router = measuredRouter();
  router.get('', adminOnly(authenticator), async (_req, res) => {
    const overview = await orServiceUnavailable(() => fleet.read());
    res.setHeader('Cache-Control', 'no-store').json(overview);
  });
  return router;
}

function adminOnly(authenticator: Authenticator): RequestHandler {
  return async function fleetAdminOnly(req, _res, next) {
    const identity = await orServiceUnavailable(() => authenticator.identify(req.headers));
    if (identity.kind !== 'principal') {
      throw authRequired({ type: 'api_key' }, 'The fleet overview needs an admin credential (X-API-Key)');
    }
    if (!isAdmin(identity.principal))
      throw new SkillError('ACCESS_DENIED', 'The fleet overview needs the admin scope');
    next();
  };
}
