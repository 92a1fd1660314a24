import { NewApiKey, SchemaValidator, SkillError } from '@skillrun/core';
import type { ApiKeyStore } from '@skillrun/core/data';
import type { Request, Router } from 'express';
import type { Identities } from '../auth/identities';
import { requireAdmin } from '../auth/require-admin';
import { requireJson } from '../http/require-json';
import { measuredRouter } from '../metrics/measured-router';

const newKey = new SchemaValidator(NewApiKey, 'new API key');

/**
 * The admin API, mounted at /admin: API keys, created (the key is shown in this answer only),
 * listed and revoked. Only admin credentials pass: ADMIN_API_KEY, or a key with the admin scope;
 * without either, the admin API is closed.
 */
export function adminRoutes(apiKeys: ApiKeyStore, identities: Identities): Router {
  const router = measuredRouter();
  const adminOnly = requireAdmin(identities, 'The admin API');

  router.post('/keys', adminOnly, requireJson(), async (req, res) => {
    const body = newKey.parse(req.body);
    const created = await apiKeys.create({
      callerId: body.caller_id,
      scopes: body.scopes,
      ...(body.skills ? { skills: body.skills } : {}),
      ...(body.name ? { name: body.name } : {}),
      ...(body.daily_budget_usd === undefined ? {} : { dailyBudgetUsd: body.daily_budget_usd }),
    });
    res.status(201).setHeader('Cache-Control', 'no-store').json(created);
  });

  router.get('/keys', adminOnly, async (req, res) => {
    const caller = typeof req.query.caller_id === 'string' ? req.query.caller_id : undefined;
    res.json({ keys: await apiKeys.list(caller) });
  });

  router.delete('/keys/:keyId', adminOnly, async (req: Request<{ keyId: string }>, res) => {
    if (!(await apiKeys.revoke(req.params.keyId))) {
      throw new SkillError('NOT_FOUND', `No API key "${req.params.keyId}"`);
    }
    res.status(204).end();
  });

  return router;
}
