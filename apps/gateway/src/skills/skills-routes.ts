import type { Router } from 'express';
import type { Authenticator } from '../auth/authenticator';
import { measuredRouter } from '../metrics/measured-router';
import { discoveryRoutes } from './discovery-routes';
import { publishingRoutes } from './publishing-routes';
import type { SkillDiscovery } from './skill-discovery';
import type { SkillPublisher } from './skill-publisher';

export interface SkillsRoutesDeps {
  discovery: SkillDiscovery;
  publisher: SkillPublisher;
  authenticator: Authenticator;
  baseUrl: string;
}

/** Skills themselves, on a router mounted at /skills: discovery, then publishing. */
export function skillsRoutes(deps: SkillsRoutesDeps): Router {
  const router = measuredRouter();
  discoveryRoutes(router, deps.discovery, deps.authenticator);
  publishingRoutes(router, deps.publisher, deps.discovery, deps.authenticator, deps.baseUrl);
  return router;
}
