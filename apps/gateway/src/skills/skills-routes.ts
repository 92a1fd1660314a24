import type { Router } from 'express';
import type { Authenticator } from '../auth/authenticator';
import { measuredRouter } from '../metrics/measured-router';
import type { SkillDiscovery } from './skill-discovery';
import type { SkillPublisher } from './skill-publisher';
import { discoveryRoutes } from './discovery-routes';
import { type InvocationRoutesDeps, invocationRoutes } from '../invocations/invocation-routes';
import { publishingRoutes } from './publishing-routes';

export interface SkillsRoutesDeps extends InvocationRoutesDeps {
  discovery: SkillDiscovery;
  publisher: SkillPublisher;
  authenticator: Authenticator;
}

/**
 * Everything under /skills, in one router mounted there: the invocation protocol first (the hot
 * path), then discovery and publishing.
 */
export function skillsRoutes(deps: SkillsRoutesDeps): Router {
  const router = measuredRouter();
  invocationRoutes(router, deps);
  discoveryRoutes(router, deps.discovery, deps.authenticator);
  publishingRoutes(router, deps.publisher, deps.discovery, deps.authenticator, deps.baseUrl);
  return router;
}
