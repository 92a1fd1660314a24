import { DeprecationRequest, type Principal, SchemaValidator, skillUrls } from '@skillrun/core';
import type { RegistryVersion } from '@skillrun/core/data';
import type { Request, Response, Router } from 'express';
import type { Identities } from '../auth/identities';
import { requireJson } from '../http/require-json';
import type { SkillDiscovery } from './skill-discovery';
import type { SkillPublisher } from './skill-publisher';

interface VersionParams {
  skillId: string;
  version: string;
}

const deprecationRequest = new SchemaValidator(DeprecationRequest, 'deprecation request');

/**
 * POST /skills (register a version hosted elsewhere), a version's deprecation and a dormant
 * version's removal, on the /skills router.
 */
export function publishingRoutes(
  router: Router,
  publisher: SkillPublisher,
  discovery: SkillDiscovery,
  identities: Identities,
  baseUrl: string,
): void {
  const shown = (versions: RegistryVersion[], viewer: Principal) => discovery.shown(versions, viewer);

  router.post('', requireJson(), async (req, res) => {
    const { descriptor, created } = await publisher.register(req.body, await identities.of(req.headers));
    const location = `${skillUrls(baseUrl, descriptor.id).skill}?version=${encodeURIComponent(descriptor.version)}`;
    res
      .status(created ? 201 : 200)
      .location(location)
      .json(descriptor);
  });

  // Ours: what this service presents to a registered skill's provider; never shown again.
  router.put('/:skillId/credentials', requireJson(), async (req: Request<{ skillId: string }>, res) => {
    await publisher.setCredentials(req.params.skillId, req.body, await identities.of(req.headers));
    res.status(204).end();
  });
  router.delete('/:skillId/credentials', async (req: Request<{ skillId: string }>, res) => {
    await publisher.setCredentials(req.params.skillId, null, await identities.of(req.headers));
    res.status(204).end();
  });

  /** Deprecates a version with `message`, or withdraws its deprecation (null). */
  const setDeprecation = async (req: Request<VersionParams>, res: Response, message: string | null) => {
    const { skillId, version } = req.params;
    const identity = await identities.of(req.headers);
    res.json(discovery.summary(await publisher.deprecate(skillId, version, message, identity, shown)));
  };
  const deprecation = '/:skillId/versions/:version/deprecation';
  router.put(deprecation, requireJson(), (req: Request<VersionParams>, res) => {
    const { message } = deprecationRequest.parse(req.body);
    return setDeprecation(req, res, message ?? `${req.params.skillId}@${req.params.version} is deprecated`);
  });
  router.delete(deprecation, (req: Request<VersionParams>, res) => setDeprecation(req, res, null));

  // Ours: a hosted version whose pool scales to zero is kept invocable without workers until this.
  router.delete('/:skillId/versions/:version/dormancy', async (req: Request<VersionParams>, res) => {
    const { skillId, version } = req.params;
    await publisher.forgetDormant(skillId, version, await identities.of(req.headers));
    res.status(204).end();
  });
}
