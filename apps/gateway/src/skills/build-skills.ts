import { ProviderCredentialsStore } from '@skillrun/core/data';
import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import { RolloutControl } from './rollout-control';
import { rolloutPaths } from './rollout-paths';
import { SkillApprovals } from './skill-approvals';
import { SkillDiscovery } from './skill-discovery';
import { skillPaths } from './skill-paths';
import { SkillPauser } from './skill-pauser';
import { SkillPublisher } from './skill-publisher';
import { skillsRoutes } from './skills-routes';

/** The skills slice, and the discovery agents list tools with. */
export interface SkillsSlice extends Slice {
  discovery: SkillDiscovery;
}

/** Skills: searched and read (as each caller may see them), registered, deprecated, paused, rolled out and forgotten. */
export function buildSkills(shared: GatewayShared): SkillsSlice {
  const { config, redis, keys, registry } = shared;
  const discovery = new SkillDiscovery(registry, shared.descriptors, shared.access, shared.pauses);
  const publisher = new SkillPublisher(
    registry,
    shared.schemas,
    config.PROVIDER_SECRETS_KEY === undefined
      ? undefined
      : new ProviderCredentialsStore(redis, keys, config.PROVIDER_SECRETS_KEY),
  );
  const router = skillsRoutes({
    discovery,
    publisher,
    pauser: new SkillPauser(registry, shared.pauses),
    rollouts: new RolloutControl(registry, shared.rollouts),
    approvals: new SkillApprovals(registry),
    identities: shared.identities,
    baseUrl: config.PUBLIC_BASE_URL,
  });
  return { routes: [{ path: '/skills', router }], paths: { ...skillPaths, ...rolloutPaths }, discovery };
}
