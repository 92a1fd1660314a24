import { Router } from 'express';
import type { Redis } from 'ioredis';
import { redisDeadline } from '../redis-deadline';

/** /healthz: the process answers. /readyz: it can reach Redis, so it can accept work. */
export function healthRoutes(redis: Redis, redisTimeoutMs: number): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    await redisDeadline(() => redis.ping(), redisTimeoutMs);
    res.json({ status: 'ready' });
  });
  return router;
}
