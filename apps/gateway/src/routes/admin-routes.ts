import { type ApiKeyStore, NewApiKey, SchemaValidator, SkillError } from '@skillrun/core';
import { type Request, type RequestHandler, Router } from 'express';
import type { Authenticator } from '../auth/authenticator';
import { isAdmin } from '../auth/identity';
import { authRequired } from '../auth/skill-access';
import { requireJson } from '../middleware/require-json';
import { redisDeadline } from '../redis-deadline';

const newKey = new SchemaValidator(NewApiKey, 'new API key');

/**
 * The admin API: API keys, created (the key is shown in this answer only), listed and revoked.
 * Only admin credentials pass: ADMIN_API_KEY, or a key with the admin scope; without either,
 * the admin API is closed.
 */
export function adminRoutes(
  apiKeys: ApiKeyStore,
  authenticator: Authenticator,
  redisTimeoutMs: number,
): Router {
  const router = Router();
  const redis = <T>(operation: () => Promise<T>) => redisDeadline(operation, redisTimeoutMs);
  const adminOnly = requireAdmin(authenticator, redisTimeoutMs);

  router.post('/admin/keys', adminOnly, requireJson(), async (req, res) => {
    const body = newKey.parse(req.body);
    const created = await redis(() =>
      apiKeys.create({
        callerId: body.caller_id,
        scopes: body.scopes,
        ...(body.skills ? { skills: body.skills } : {}),
        ...(body.name ? { name: body.name } : {}),
      }),
    );
    res.status(201).setHeader('Cache-Control', 'no-store').json(created);
  });

  router.get('/admin/keys', adminOnly, async (req, res) => {
    const caller = typeof req.query.caller_id === 'string' ? req.query.caller_id : undefined;
    res.json({ keys: await redis(() => apiKeys.list(caller)) });
  });

  router.delete('/admin/keys/:keyId', adminOnly, async (req: Request<{ keyId: string }>, res) => {
    if (!(await redis(() => apiKeys.revoke(req.params.keyId)))) {
      throw new SkillError('NOT_FOUND', `No API key "${req.params.keyId}"`);
    }
    res.status(204).end();
  });

  return router;
}

function requireAdmin(authenticator: Authenticator, redisTimeoutMs: number): RequestHandler {
  return async function adminOnly(req, _res, next) {
    const identity = await redisDeadline(() => authenticator.identify(req), redisTimeoutMs);
    if (identity.kind !== 'principal') {
      throw authRequired({ type: 'api_key' }, 'The admin API needs an admin credential (X-API-Key)');
    }
    if (!isAdmin(identity.principal))
      throw new SkillError('ACCESS_DENIED', 'The admin API needs the admin scope');
    next();
  };
}
