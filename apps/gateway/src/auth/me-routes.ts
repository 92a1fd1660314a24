import type { CallerIdentity } from '@skillrun/core';
import type { Router } from 'express';
import { measuredRouter } from '../metrics/measured-router';
import type { Identities } from './identities';
import { roleOf } from './role-of';
import { authRequired } from './skill-access';

/**
 * GET /me: who the credentials say the caller is. A consumer holding only a key learns from it the
 * caller.id its invocations must name (a key does not carry it readably).
 */
export function meRoutes(identities: Identities): Router {
  const router = measuredRouter();
  router.get('', async (req, res) => {
    const identity = await identities.of(req.headers);
    if (identity.kind !== 'principal') {
      throw authRequired({ type: 'api_key' }, 'GET /me needs credentials (X-API-Key or a bearer token)');
    }
    const { callerId, scopes, skills, method } = identity.principal;
    const role = roleOf(identity.principal);
    const answer: CallerIdentity = {
      caller_id: callerId,
      scopes: [...scopes],
      ...(skills ? { skills: [...skills] } : {}),
      ...(role ? { role } : {}),
      method,
    };
    res.setHeader('Cache-Control', 'no-store');
    res.json(answer);
  });
  return router;
}
