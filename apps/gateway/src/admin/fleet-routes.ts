import type { Router } from 'express';
import type { Authenticator } from '../auth/authenticator';
import { requireAdmin } from '../auth/require-admin';
import { measuredRouter } from '../metrics/measured-router';
import type { FleetOverview } from './fleet-overview';

/**
 * GET /admin/fleet (the router is mounted there): the workers alive, what each hosts, and each
 * hosted version's queue depth and age, for admins (the console's workers and queues page).
 */
export function fleetRoutes(fleet: FleetOverview, authenticator: Authenticator): Router {
  const router = measuredRouter();
  router.get('', requireAdmin(authenticator, 'The fleet overview'), async (_req, res) => {
    const overview = await fleet.read();
    res.setHeader('Cache-Control', 'no-store').json(overview);
  });
  return router;
}
