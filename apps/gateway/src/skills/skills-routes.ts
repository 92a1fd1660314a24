import type { Router } from 'express';
import type { Identities } from '../auth/identities';
import { measuredRouter } from '../metrics/measured-router';
import { approvalRoutes } from './approval-routes';
import { discoveryRoutes } from './discovery-routes';
import { pauseRoutes } from './pause-routes';
import { publishingRoutes } from './publishing-routes';
import type { RolloutControl } from './rollout-control';
import { rolloutRoutes } from './rollout-routes';
import type { SkillApprovals } from './skill-approvals';
import type { SkillDiscovery } from './skill-discovery';
import type { SkillPauser } from './skill-pauser';
import type { SkillPublisher } from './skill-publisher';

export interface SkillsRoutesDeps {
  discovery: SkillDiscovery;
  publisher: SkillPublisher;
  pauser: SkillPauser;
  rollouts: RolloutControl;
  approvals: SkillApprovals;
  identities: Identities;
  baseUrl: string;
}

/** Skills themselves, on a router mounted at /skills: discovery, then publishing, pausing and rollouts. */
/** Skills themselves, on a router mounted at /skills: discovery, then publishing, pausing and approval policies. */
export function skillsRoutes(deps: SkillsRoutesDeps): Router {
  const router = measuredRouter();
  discoveryRoutes(router, deps.discovery, deps.identities);
  publishingRoutes(router, deps.publisher, deps.discovery, deps.identities, deps.baseUrl);
  pauseRoutes(router, deps.pauser, deps.identities);
  rolloutRoutes(router, deps.rollouts, deps.identities);
  approvalRoutes(router, deps.approvals, deps.identities);
  return router;
}
