import type { ApiKeyStore, Logger, ReadinessCheck } from '@skillrun/core';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Authenticator } from './auth/authenticator';
import type { ExecutionReader } from './execution-reader';
import type { InvocationService } from './invocation-service';
import type { GatewayMetrics } from './metrics/gateway-metrics';
import { httpMetrics } from './metrics/http-metrics';
import { metricsRoutes } from './metrics/metrics-routes';
import { errorHandler, notFound } from './middleware/error-handler';
import { jsonBody } from './middleware/json-body';
import { adminRoutes } from './routes/admin-routes';
import { apiDocsRoutes } from './routes/api-docs-routes';
import { discoveryRoutes } from './routes/discovery-routes';
import { healthRoutes } from './routes/health-routes';
import { invocationRoutes } from './routes/invocation-routes';
import { publishingRoutes } from './routes/publishing-routes';
import { type QueueDashboardSettings, queueDashboardRoutes } from './routes/queue-dashboard-routes';
import type { SkillDiscovery } from './skill-discovery';
import type { SkillPublisher } from './skill-publisher';

export interface AppDeps {
  readiness: ReadinessCheck;
  metrics: GatewayMetrics;
  discovery: SkillDiscovery;
  publisher: SkillPublisher;
  invocations: InvocationService;
  executions: ExecutionReader;
  authenticator: Authenticator;
  apiKeys: ApiKeyStore;
  baseUrl: string;
  logger: Logger;
  bodyLimitBytes: number;
  maxJsonDepth: number;
  redisTimeoutMs: number;
  /** Express' `trust proxy`: which proxies' X-Forwarded-For names the client (TRUST_PROXY). */
  trustProxy?: boolean | number | string;
  /** The job dashboard at /admin/queues; absent when QUEUE_DASHBOARD is off. */
  queueDashboard?: QueueDashboardSettings;
}

/** The gateway's HTTP API, built from its dependencies so that tests can drive it. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (deps.trustProxy !== undefined) app.set('trust proxy', deps.trustProxy);
  app.use(httpMetrics(deps.metrics));
  app.use(helmet());
  app.use(jsonBody(deps.bodyLimitBytes, deps.maxJsonDepth));
  app.use(healthRoutes(deps.readiness));
  app.use(metricsRoutes(deps.metrics));
  app.use(apiDocsRoutes(deps.baseUrl));
  app.use(adminRoutes(deps.apiKeys, deps.authenticator, deps.redisTimeoutMs));
  if (deps.queueDashboard)
    app.use(queueDashboardRoutes(deps.queueDashboard, deps.authenticator, deps.redisTimeoutMs));
  app.use(discoveryRoutes(deps.discovery, deps.authenticator, deps.redisTimeoutMs));
  app.use(
    publishingRoutes(deps.publisher, deps.discovery, deps.authenticator, deps.baseUrl, deps.redisTimeoutMs),
  );
  app.use(invocationRoutes(deps.invocations, deps.executions, deps.authenticator, deps.baseUrl));
  app.use(notFound());
  app.use(errorHandler(deps.logger));
  return app;
}
