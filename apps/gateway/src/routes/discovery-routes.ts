import { parseVersionRange, SchemaValidator, SkillSearchQuery, VersionQuery } from '@skillrun/core';
import { type Request, Router } from 'express';
import type { Authenticator, HeaderSource } from '../auth/authenticator';
import { principalOf } from '../auth/identity';
import { redisDeadline } from '../redis-deadline';
import type { SkillDiscovery } from '../skill-discovery';
import { setDeprecationHeader } from './deprecation-header';

export interface SkillParams {
  skillId: string;
}

const searchQuery = new SchemaValidator(SkillSearchQuery, 'search query', { coerceTypes: true });
export const versionQuery = new SchemaValidator(VersionQuery, 'query');

/** GET /skills (search), GET /skills/{id} (a descriptor), GET /skills/{id}/versions. */
export function discoveryRoutes(
  discovery: SkillDiscovery,
  authenticator: Authenticator,
  redisTimeoutMs: number,
): Router {
  const router = Router();
  const viewer = async (req: HeaderSource) => principalOf(await authenticator.identify(req));

  router.get('/skills', async (req, res) => {
    const query = searchQuery.parse({ ...req.query });
    res.json(await redisDeadline(async () => discovery.search(query, await viewer(req)), redisTimeoutMs));
  });

  router.get('/skills/:skillId', async (req: Request<SkillParams>, res) => {
    const { version } = versionQuery.parse({ ...req.query });
    const range = version === undefined ? undefined : parseVersionRange(version, '/version');
    const descriptor = await redisDeadline(
      async () => discovery.describe(req.params.skillId, range, await viewer(req)),
      redisTimeoutMs,
    );
    setDeprecationHeader(res, descriptor['x-deprecated']);
    res.json(descriptor);
  });

  router.get('/skills/:skillId/versions', async (req: Request<SkillParams>, res) => {
    res.json(
      await redisDeadline(
        async () => discovery.versions(req.params.skillId, await viewer(req)),
        redisTimeoutMs,
      ),
    );
  });

  return router;
}
