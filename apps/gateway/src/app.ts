import type { Logger } from '@skillrun/core';
import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import type { InvocationService } from './invocation-service';
import { errorHandler, notFound } from './middleware/error-handler';
import { jsonBody } from './middleware/json-body';
import { apiDocsRoutes } from './routes/api-docs-routes';
import { discoveryRoutes } from './routes/discovery-routes';
import { healthRoutes } from './routes/health-routes';
import { invocationRoutes } from './routes/invocation-routes';
import { publishingRoutes } from './routes/publishing-routes';
import type { SkillDiscovery } from './skill-discovery';
import type { SkillPublisher } from './skill-publisher';

export interface AppDeps {
  redis: Redis;
  discovery: SkillDiscovery;
  publisher: SkillPublisher;
  invocations: InvocationService;
  baseUrl: string;
  logger: Logger;
  bodyLimitBytes: number;
  maxJsonDepth: number;
  redisTimeoutMs: number;
}

/** The gateway's HTTP API, built from its dependencies so that tests can drive it. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(jsonBody(deps.bodyLimitBytes, deps.maxJsonDepth));
  app.use(healthRoutes(deps.redis, deps.redisTimeoutMs));
  app.use(apiDocsRoutes(deps.baseUrl));
  app.use(discoveryRoutes(deps.discovery, deps.redisTimeoutMs));
  app.use(publishingRoutes(deps.publisher, deps.discovery, deps.baseUrl, deps.redisTimeoutMs));
  app.use(invocationRoutes(deps.invocations, deps.baseUrl));
  app.use(notFound());
  app.use(errorHandler(deps.logger));
  return app;
}
