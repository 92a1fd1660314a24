import type { Router } from 'express';
import type { Identities } from '../auth/identities';
import { requireRole } from '../auth/require-role';
import { measuredRouter } from '../metrics/measured-router';
import type { FleetOverview } from './fleet-overview';

/**
 * GET /admin/fleet (the router is mounted there): the workers alive, what each hosts, and each
 * hosted version's queue depth and age, for every role (the console's workers and queues page).
 */
export function fleetRoutes(fleet: FleetOverview, identities: Identities): Router {
  const router = measuredRouter();
  router.get('', requireRole(identities, 'viewer', 'The fleet overview'), async (_req, res) => {
    const overview = await fleet.read();
    res.setHeader('Cache-Control', 'no-store').json(overview);
  });
  return router;
}
