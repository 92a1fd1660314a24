import {
  DeprecationRequest,
  type Principal,
  type RegistryVersion,
  SchemaValidator,
  skillUrls,
} from '@skillrun/core';
import { type Request, Router } from 'express';
import type { Authenticator } from '../auth/authenticator';
import { requireJson } from '../middleware/require-json';
import { redisDeadline } from '../redis-deadline';
import type { SkillDiscovery } from '../skill-discovery';
import type { SkillPublisher } from '../skill-publisher';

interface VersionParams {
  skillId: string;
  version: string;
}

const deprecationRequest = new SchemaValidator(DeprecationRequest, 'deprecation request');

/** POST /skills (register a version hosted elsewhere) and a version's deprecation. */
export function publishingRoutes(
  publisher: SkillPublisher,
  discovery: SkillDiscovery,
  authenticator: Authenticator,
  baseUrl: string,
  redisTimeoutMs: number,
): Router {
  const router = Router();
  const shown = (versions: RegistryVersion[], viewer: Principal) => discovery.shown(versions, viewer);

  router.post('/skills', requireJson(), async (req, res) => {
    const { descriptor, created } = await redisDeadline(
      async () => publisher.register(req.body, await authenticator.identify(req)),
      redisTimeoutMs,
    );
    const location = `${skillUrls(baseUrl, descriptor.id).skill}?version=${encodeURIComponent(descriptor.version)}`;
    res
      .status(created ? 201 : 200)
      .location(location)
      .json(descriptor);
  });

  const deprecation = '/skills/:skillId/versions/:version/deprecation';
  router.put(deprecation, requireJson(), async (req: Request<VersionParams>, res) => {
    const { message } = deprecationRequest.parse(req.body);
    const { skillId, version } = req.params;
    const text = message ?? `${skillId}@${version} is deprecated`;
    const updated = await redisDeadline(
      async () => publisher.deprecate(skillId, version, text, await authenticator.identify(req), shown),
      redisTimeoutMs,
    );
    res.json(discovery.summary(updated));
  });

  router.delete(deprecation, async (req: Request<VersionParams>, res) => {
    const { skillId, version } = req.params;
    const updated = await redisDeadline(
      async () => publisher.deprecate(skillId, version, null, await authenticator.identify(req), shown),
      redisTimeoutMs,
    );
    res.json(discovery.summary(updated));
  });

  return router;
}
