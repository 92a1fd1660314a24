import { parseVersionRange, SchemaValidator, SkillSearchQuery, VersionQuery } from '@skillrun/core';
import { type Request, Router } from 'express';
import { redisDeadline } from '../redis-deadline';
import type { SkillDiscovery } from '../skill-discovery';
import { setDeprecationHeader } from './deprecation-header';

export interface SkillParams {
  skillId: string;
}

const searchQuery = new SchemaValidator(SkillSearchQuery, 'search query', { coerceTypes: true });
export const versionQuery = new SchemaValidator(VersionQuery, 'query');

/** GET /skills (search), GET /skills/{id} (a descriptor), GET /skills/{id}/versions. */
export function discoveryRoutes(discovery: SkillDiscovery, redisTimeoutMs: number): Router {
  const router = Router();

  router.get('/skills', async (req, res) => {
    const query = searchQuery.parse({ ...req.query });
    res.json(await redisDeadline(() => discovery.search(query), redisTimeoutMs));
  });

  router.get('/skills/:skillId', async (req: Request<SkillParams>, res) => {
    const { version } = versionQuery.parse({ ...req.query });
    const range = version === undefined ? undefined : parseVersionRange(version, '/version');
    const descriptor = await redisDeadline(
      () => discovery.describe(req.params.skillId, range),
      redisTimeoutMs,
    );
    setDeprecationHeader(res, descriptor['x-deprecated']);
    res.json(descriptor);
  });

  router.get('/skills/:skillId/versions', async (req: Request<SkillParams>, res) => {
    res.json(await redisDeadline(() => discovery.versions(req.params.skillId), redisTimeoutMs));
  });

  return router;
}
