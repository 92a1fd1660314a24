import type { DescriptorContext, Logger } from '@skillrun/core';
import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import type { InvocationService } from './invocation-service';
import { errorHandler, notFound } from './middleware/error-handler';
import { healthRoutes } from './routes/health-routes';
import { skillRoutes } from './routes/skill-routes';
import type { SkillDirectory } from './skill-directory';

export interface AppDeps {
  redis: Redis;
  directory: SkillDirectory;
  invocations: InvocationService;
  descriptor: DescriptorContext;
  logger: Logger;
  bodyLimitBytes: number;
  redisTimeoutMs: number;
}

/** The gateway's HTTP API, built from its dependencies so that tests can drive it. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ limit: deps.bodyLimitBytes, strict: true }));
  app.use(healthRoutes(deps.redis, deps.redisTimeoutMs));
  app.use(skillRoutes(deps));
  app.use(notFound());
  app.use(errorHandler(deps.logger));
  return app;
}
