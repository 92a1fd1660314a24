import type { ApiKeyStore, Logger, ReadinessCheck } from '@skillrun/core';
import express, { type Express } from 'express';
import type { AgentGateway } from '../agents/agent-gateway';
import { agentRoutes } from '../agents/agent-routes';
import type { Authenticator } from '../auth/authenticator';
import type { CallerStreams } from '../executions/caller-streams';
import {
  CONSOLE_PATH,
  type ConsoleOAuth,
  consoleRoutes,
  consoleSignInRoutes,
  type FleetOverview,
  fleetRoutes,
} from '../console';
import type { ExecutionCanceler } from '../executions/execution-canceler';
import type { ExecutionHistory } from '../executions/execution-history';
import type { ExecutionReader } from '../executions/execution-reader';
import type { ExecutionReplayer } from '../invocations/execution-replayer';
import type { ExecutionStreams } from '../executions/execution-stream';
import type { InvocationService } from '../invocations/invocation-service';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import { httpMetrics } from '../metrics/http-metrics';
import { metricsRoutes } from '../metrics/metrics-routes';
import { errorHandler, notFound } from './error-handler';
import { jsonApiHeaders } from './json-api-headers';
import { jsonBody } from './json-body';
import { openApiDocument } from './openapi-document';
import { adminRoutes } from '../admin/admin-routes';
import { apiDocsRoutes, openApiRoutes } from './api-docs-routes';
import { executionRoutes } from '../executions/execution-routes';
import { livenessRoutes, readinessRoutes } from './health-routes';
import { meRoutes } from '../auth/me-routes';
import {
  QUEUE_DASHBOARD_PATH,
  type QueueDashboardSettings,
  queueDashboardRoutes,
} from '../admin/queue-dashboard-routes';
import { skillsRoutes } from '../skills/skills-routes';
import { taskRoutes } from '../tasks/task-routes';
import { webhookRoutes } from '../webhooks/webhook-routes';
import type { SkillDiscovery } from '../skills/skill-discovery';
import type { SkillPublisher } from '../skills/skill-publisher';
import type { TaskDesk } from '../tasks/task-desk';
import type { WebhookDesk } from '../webhooks/webhook-desk';

export interface AppDeps {
  readiness: ReadinessCheck;
  metrics: GatewayMetrics;
  discovery: SkillDiscovery;
  publisher: SkillPublisher;
  invocations: InvocationService;
  executions: ExecutionReader;
  canceler: ExecutionCanceler;
  history: ExecutionHistory;
  replayer: ExecutionReplayer;
  streams: ExecutionStreams;
  callerStreams: CallerStreams;
  tasks: TaskDesk;
  webhooks: WebhookDesk;
  authenticator: Authenticator;
  apiKeys: ApiKeyStore;
  /** Workers and queues, for GET /admin/fleet (the console's workers page). */
  fleet: FleetOverview;
  /** Skills for agents: tool definitions (GET /tools), MCP (/mcp) and A2A (/a2a, the Agent Card). */
  agents: AgentGateway;
  baseUrl: string;
  logger: Logger;
  bodyLimitBytes: number;
  maxJsonDepth: number;
  /** Express' `trust proxy`: which proxies' X-Forwarded-For names the client (TRUST_PROXY). */
  trustProxy?: boolean | number | string;
  /** Signing in to the console at an OAuth 2 authorization server; absent when not configured. */
  consoleOAuth?: ConsoleOAuth;
  /** The job dashboard at /admin/queues; absent when QUEUE_DASHBOARD is off. */
  queueDashboard?: QueueDashboardSettings;
}

/**
 * The gateway's HTTP API, built from its dependencies so that tests can drive it. Each router is
 * mounted under its prefix, so that a request descends only into its own (the first, /skills, is
 * the hot path). Security headers are sized for what is answered: `nosniff` on every answer,
 * helmet's full set on the HTML pages (/docs, /admin/queues, the console at /console) only.
 */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (deps.trustProxy !== undefined) app.set('trust proxy', deps.trustProxy);
  app.use(httpMetrics(deps.metrics));
  app.use(jsonApiHeaders());
  app.use(jsonBody(deps.bodyLimitBytes, deps.maxJsonDepth));
  app.use(
    '/skills',
    skillsRoutes({
      invocations: deps.invocations,
      executions: deps.executions,
      canceler: deps.canceler,
      replayer: deps.replayer,
      streams: deps.streams,
      discovery: deps.discovery,
      publisher: deps.publisher,
      authenticator: deps.authenticator,
      baseUrl: deps.baseUrl,
    }),
  );
  app.use('/executions', executionRoutes(deps.history, deps.replayer, deps.callerStreams));
  app.use('/tasks', taskRoutes(deps.tasks));
  app.use('/webhooks', webhookRoutes(deps.webhooks));
  app.use(agentRoutes(deps.agents));
  if (deps.queueDashboard) {
    app.use(QUEUE_DASHBOARD_PATH, queueDashboardRoutes(deps.queueDashboard, deps.authenticator));
  }
  app.use('/admin/fleet', fleetRoutes(deps.fleet, deps.authenticator));
  app.use('/admin', adminRoutes(deps.apiKeys, deps.authenticator));
  app.use('/me', meRoutes(deps.authenticator));
  app.use('/healthz', livenessRoutes());
  app.use('/readyz', readinessRoutes(deps.readiness));
  app.use('/metrics', metricsRoutes(deps.metrics));
  const document = openApiDocument(deps.baseUrl);
  app.use('/openapi.json', openApiRoutes(document));
  app.use('/docs', apiDocsRoutes(document));
  app.use(`${CONSOLE_PATH}/sign-in`, consoleSignInRoutes(deps.consoleOAuth));
  app.use(CONSOLE_PATH, consoleRoutes());
  app.use(notFound());
  app.use(errorHandler(deps.logger));
  return app;
}
