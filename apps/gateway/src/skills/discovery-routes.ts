import {
  parseVersionRange,
  SchemaValidator,
  SkillSearchQuery,
  toSkillMd,
  VersionQuery,
} from '@skillrun/core';
import type { Request, Router } from 'express';
import type { Identities } from '../auth/identities';
import { principalOf } from '../auth/identity';
import { setDeprecationHeader } from '../http/deprecation-header';
import type { RequestHeaders } from '../http/request-headers';
import type { SkillDiscovery } from './skill-discovery';

export interface SkillParams {
  skillId: string;
}

const searchQuery = new SchemaValidator(SkillSearchQuery, 'search query', { coerceTypes: true });
export const versionQuery = new SchemaValidator(VersionQuery, 'query');

/**
 * On the /skills router: GET /skills (search), GET /skills/{id} (a descriptor), the same as an
 * Agent Skills SKILL.md, and its /versions.
 */
export function discoveryRoutes(router: Router, discovery: SkillDiscovery, identities: Identities): void {
  const viewer = async (headers: RequestHeaders) => principalOf(await identities.of(headers));
  /** The descriptor GET /skills/{id} answers: at `?version=RANGE` if asked, as the caller may see it. */
  const described = async (req: Request<SkillParams>) => {
    const { version } = versionQuery.parse({ ...req.query });
    const range = version === undefined ? undefined : parseVersionRange(version, '/version');
    return discovery.describe(req.params.skillId, range, await viewer(req.headers));
  };

  router.get('', async (req, res) => {
    const query = searchQuery.parse({ ...req.query });
    res.json(await discovery.search(query, await viewer(req.headers)));
  });

  router.get('/:skillId', async (req: Request<SkillParams>, res) => {
    const descriptor = await described(req);
    setDeprecationHeader(res, descriptor['x-deprecated']);
    res.json(descriptor);
  });

  router.get('/:skillId/SKILL.md', async (req: Request<SkillParams>, res) => {
    const descriptor = await described(req);
    setDeprecationHeader(res, descriptor['x-deprecated']);
    res.set('Content-Type', 'text/markdown; charset=utf-8').send(toSkillMd(descriptor));
  });

  router.get('/:skillId/versions', async (req: Request<SkillParams>, res) => {
    res.json(await discovery.versions(req.params.skillId, await viewer(req.headers)));
  });
}
