import { type ApiKeyStore, NewApiKey, SchemaValidator, SkillError } from '@skillrun/core';
import type { Request, RequestHandler, Router } from 'express';
import type { Authenticator } from '../auth/authenticator';
import { isAdmin } from '../auth/identity';
import { authRequired } from '../auth/skill-access';
import { orServiceUnavailable } from '../http/or-service-unavailable';
import { requireJson } from '../http/require-json';
import { measuredRouter } from '../metrics/measured-router';

const newKey = new SchemaValidator(NewApiKey, 'new API key');

/**
 * The admin API, mounted at /admin: API keys, created (the key is shown in this answer only),
 * listed and revoked. Only admin credentials pass: ADMIN_API_KEY, or a key with the admin scope;
 * without either, the admin API is closed.
 */
export function adminRoutes(apiKeys: ApiKeyStore, authenticator: Authenticator): Router {
  const router = measuredRouter();
  const adminOnly = requireAdmin(authenticator);

  router.post('/keys', adminOnly, requireJson(), async (req, res) => {
    const body = newKey.parse(req.body);
    const created = await orServiceUnavailable(() =>
      apiKeys.create({
        callerId: body.caller_id,
        scopes: body.scopes,
        ...(body.skills ? { skills: body.skills } : {}),
        ...(body.name ? { name: body.name } : {}),
      }),
    );
    res.status(201).setHeader('Cache-Control', 'no-store').json(created);
  });

  router.get('/keys', adminOnly, async (req, res) => {
    const caller = typeof req.query.caller_id === 'string' ? req.query.caller_id : undefined;
    res.json({ keys: await orServiceUnavailable(() => apiKeys.list(caller)) });
  });

  router.delete('/keys/:keyId', adminOnly, async (req: Request<{ keyId: string }>, res) => {
    if (!(await orServiceUnavailable(() => apiKeys.revoke(req.params.keyId)))) {
      throw new SkillError('NOT_FOUND', `No API key "${req.params.keyId}"`);
    }
    res.status(204).end();
  });

  return router;
}

function requireAdmin(authenticator: Authenticator): RequestHandler {
  return async function adminOnly(req, _res, next) {
    const identity = await orServiceUnavailable(() => authenticator.identify(req.headers));
    if (identity.kind !== 'principal') {
      throw authRequired({ type: 'api_key' }, 'The admin API needs an admin credential (X-API-Key)');
    }
    if (!isAdmin(identity.principal))
      throw new SkillError('ACCESS_DENIED', 'The admin API needs the admin scope');
    next();
  };
}
