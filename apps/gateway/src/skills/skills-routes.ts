import type { Router } from 'express';
import type { Identities } from '../auth/identities';
import { measuredRouter } from '../metrics/measured-router';
import { discoveryRoutes } from './discovery-routes';
import { publishingRoutes } from './publishing-routes';
import type { SkillDiscovery } from './skill-discovery';
import type { SkillPublisher } from './skill-publisher';

export interface SkillsRoutesDeps {
  discovery: SkillDiscovery;
  publisher: SkillPublisher;
  identities: Identities;
  baseUrl: string;
}

/** Skills themselves, on a router mounted at /skills: discovery, then publishing. */
export function skillsRoutes(deps: SkillsRoutesDeps): Router {
  const router = measuredRouter();
  discoveryRoutes(router, deps.discovery, deps.identities);
  publishingRoutes(router, deps.publisher, deps.discovery, deps.identities, deps.baseUrl);
  return router;
}
