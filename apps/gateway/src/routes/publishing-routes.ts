import { DeprecationRequest, SchemaValidator, skillUrls } from '@skillrun/core';
import { type Request, Router } from 'express';
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
  baseUrl: string,
  redisTimeoutMs: number,
): Router {
  const router = Router();

  router.post('/skills', requireJson(), async (req, res) => {
    const { descriptor, created } = await redisDeadline(() => publisher.register(req.body), redisTimeoutMs);
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
      () => publisher.deprecate(skillId, version, text, (versions) => discovery.shown(versions)),
      redisTimeoutMs,
    );
    res.json(discovery.summary(updated));
  });

  router.delete(deprecation, async (req: Request<VersionParams>, res) => {
    const { skillId, version } = req.params;
    const updated = await redisDeadline(
      () => publisher.deprecate(skillId, version, null, (versions) => discovery.shown(versions)),
      redisTimeoutMs,
    );
    res.json(discovery.summary(updated));
  });

  return router;
}
