import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import { mePaths } from './me-paths';
import { meRoutes } from './me-routes';

/** GET /me: who the credentials say the caller is. */
export function buildMe(shared: GatewayShared): Slice {
  return { routes: [{ path: '/me', router: meRoutes(shared.identities) }], paths: mePaths };
}
