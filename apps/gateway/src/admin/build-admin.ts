import type { GatewayShared } from '../gateway-shared';
import type { Mount, Slice } from '../http/slice';
import { adminRoutes } from './admin-routes';
import { apiKeyPaths } from './api-key-paths';
import { FleetOverview } from './fleet-overview';
import { fleetPaths } from './fleet-paths';
import { fleetRoutes } from './fleet-routes';
import { QUEUE_DASHBOARD_PATH, queueDashboardRoutes } from './queue-dashboard-routes';

/**
 * What admins use, under /admin: the job dashboard (when QUEUE_DASHBOARD is on), the fleet of
 * workers and queues, and API keys.
 */
export function buildAdmin(shared: GatewayShared): Slice {
  const { config, redis, keys, registry, queues, identities } = shared;
  const dashboard: Mount[] = config.QUEUE_DASHBOARD
    ? [
        {
          path: QUEUE_DASHBOARD_PATH,
          router: queueDashboardRoutes(
            { registry, queues, actions: config.QUEUE_DASHBOARD_ACTIONS },
            identities,
          ),
        },
      ]
    : [];
  const fleet = new FleetOverview({ redis, keys, registry, queues, pauses: shared.pauses });
  return {
    routes: [
      ...dashboard,
      { path: '/admin/fleet', router: fleetRoutes(fleet, identities) },
      { path: '/admin', router: adminRoutes(shared.apiKeys, identities) },
    ],
    paths: { ...fleetPaths, ...apiKeyPaths },
  };
}
