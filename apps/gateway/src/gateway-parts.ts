import {
  ApiKeyStore,
  createRedis,
  ExecutionLauncher,
  ExecutionStore,
  FollowedCallers,
  InFlightSlots,
  isVisible,
  type Logger,
  ProviderCredentialsStore,
  QueueRegistry,
  ReadinessCheck,
  RedisKeys,
  SkillRegistry,
  SkillResolver,
  SkillSchemas,
  TaskStore,
  WebhookDeliveries,
  WebhookStore,
} from '@skillrun/core';
import { queueTelemetry } from '@skillrun/telemetry';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import { AgentGateway } from './agents/agent-gateway';
import { createApp } from './app';
import { Authenticator } from './auth/authenticator';
import { CustomAuthorizer } from './auth/custom-authorizer';
import { ExecutionIdentity } from './auth/execution-identity';
import { JwtVerifier } from './auth/jwt-verifier';
import { SkillAccess } from './auth/skill-access';
import { CallerStreams } from './caller-streams';
import { ChangeFeed } from './change-feed';
import { descriptorContext, type GatewayConfig, trustProxyOf } from './config';
import { consoleOAuthOf, FleetOverview } from './console';
import { ExecutionCanceler } from './execution-canceler';
import { ExecutionHistory } from './execution-history';
import { ExecutionReader } from './execution-reader';
import { ExecutionReplayer } from './execution-replayer';
import { ExecutionStreams } from './execution-stream';
import { ExecutionWatcher } from './execution-watcher';
import { FairShare } from './fair-share';
import { IdempotencyKeys } from './idempotency/idempotency-keys';
import { InvocationService } from './invocation-service';
import { CallerLimits } from './limits/caller-limits';
import { GatewayMetrics } from './metrics/gateway-metrics';
import { NotifiedCallers } from './notified-callers';
import { SkillDiscovery } from './skill-discovery';
import { SkillPublisher } from './skill-publisher';
import { StreamQuota } from './stream-quota';
import { TaskDesk } from './tasks/task-desk';
import { TaskLinks } from './tasks/task-links';
import { WebhookDesk } from './webhooks/webhook-desk';
import { WebhookUrlCheck } from './webhooks/webhook-url-check';

/** What a gateway process is made of, wired and not listening yet. */
export interface GatewayParts {
  /** The HTTP API. */
  app: Express;
  /** Closed once the server has stopped: the connection, its producers, the waiters' subscriber. */
  redis: Redis;
  queues: QueueRegistry;
  watcher: ExecutionWatcher;
  /** The notifications stream, read while callers' event streams are open. */
  feed: ChangeFeed;
  /** Which callers have standing webhooks or followers: read before the first invocation, then every while. */
  notified: NotifiedCallers;
  /** MCP sessions, A2A, and what tells MCP sessions of tool list changes: closed at shutdown. */
  agents: AgentGateway;
}

/**
 * Wires a gateway from its configuration, and only wires: one Redis connection shared by
 * everything, whose command timeout (REDIS_TIMEOUT_MS) bounds what each request asks of Redis.
 */
export function buildGateway(config: GatewayConfig, logger: Logger): GatewayParts {
  const redis = createRedis(config.redisTarget, {
    role: 'request',
    commandTimeoutMs: config.REDIS_TIMEOUT_MS,
  });
  const keys = new RedisKeys(config.KEY_PREFIX);
  const queues = new QueueRegistry(redis, config.KEY_PREFIX, queueTelemetry());
  const registry = new SkillRegistry(redis, keys);
  const schemas = new SkillSchemas();
  const descriptors = descriptorContext(config);
  const store = new ExecutionStore(redis, keys, config.EXECUTION_TTL_SECONDS);
  const access = new SkillAccess(descriptors.defaults);
  const apiKeys = new ApiKeyStore(redis, keys, config.API_KEY_CACHE_MS);
  const authenticator = new Authenticator({
    apiKeys,
    ...(config.OAUTH_JWKS_URL && config.OAUTH_ISSUER && config.OAUTH_AUDIENCE
      ? {
          jwt: new JwtVerifier({
            issuer: config.OAUTH_ISSUER,
            audience: config.OAUTH_AUDIENCE,
            jwksUrl: config.OAUTH_JWKS_URL,
          }),
        }
      : {}),
    ...(config.ADMIN_API_KEY ? { adminKey: config.ADMIN_API_KEY } : {}),
    ...(config.CUSTOM_AUTH_URL
      ? {
          custom: new CustomAuthorizer({
            url: config.CUSTOM_AUTH_URL,
            timeoutMs: config.CUSTOM_AUTH_TIMEOUT_MS,
            logger,
          }),
        }
      : {}),
    logger,
  });
  const webhooks = new WebhookStore(redis, keys, config.EXECUTION_TTL_SECONDS);
  const followers = new FollowedCallers(redis, keys);
  const notified = new NotifiedCallers({
    webhooks,
    followers,
    redis,
    open: () => redis.duplicate(),
    keys,
  });
  const webhookUrls = new WebhookUrlCheck(config.OUTBOUND_ALLOW?.split(',') ?? []);
  const watcher = new ExecutionWatcher({
    open: () => redis.duplicate(),
    keys,
    maxWatches: config.MAX_WAITERS,
  });
  const invocations = new InvocationService({
    resolver: new SkillResolver(
      registry,
      (entry) => isVisible(entry, config.DEFAULT_SKILL_ACCESS),
      config.SKILL_CACHE_MS,
    ),
    launcher: new ExecutionLauncher({
      redis,
      store,
      queues,
      retryBackoffMs: config.RETRY_BACKOFF_MS,
    }),
    schemas,
    access,
    limits: new CallerLimits(config.limits, redis, keys, new InFlightSlots(redis, keys)),
    idempotency: new IdempotencyKeys(redis, keys, { ttlSeconds: config.IDEMPOTENCY_TTL_SECONDS }),
    fairShare: new FairShare({
      burst: config.FAIR_SHARE_BURST,
      windowMs: config.FAIR_SHARE_WINDOW_SECONDS * 1000,
    }),
    authenticator,
    defaultAuth: descriptors.defaults.auth,
    webhooks,
    notified,
    webhookUrls,
    watcher,
  });
  const metrics = new GatewayMetrics(
    { registry, queues, timeoutMs: config.REDIS_TIMEOUT_MS },
    () => watcher.waiting,
  );
  const quota = new StreamQuota(config.MAX_STREAMS_PER_CALLER);
  const feed = new ChangeFeed({ open: () => redis.duplicate(), redis, keys });
  const identity = new ExecutionIdentity({
    store,
    authenticator,
    registry,
    defaultAuth: descriptors.defaults.auth,
  });
  const history = new ExecutionHistory({
    store,
    authenticator,
    retentionSeconds: config.EXECUTION_TTL_SECONDS,
  });
  const discovery = new SkillDiscovery(registry, descriptors, access);
  const executions = new ExecutionReader({
    store,
    watcher,
    identity,
    maxWaitSeconds: config.MAX_WAIT_SECONDS,
  });
  const canceler = new ExecutionCanceler({ redis, keys, store, queues, identity, metrics });
  const agents = new AgentGateway({
    discovery,
    authenticator,
    invocations,
    executions,
    canceler,
    store,
    registry,
    baseUrl: config.PUBLIC_BASE_URL,
    logger,
    callWaitSeconds: config.MCP_CALL_WAIT_SECONDS,
    toolsPageSize: config.MCP_TOOLS_PAGE_SIZE,
    listChangedPollMs: config.MCP_LIST_CHANGED_POLL_MS,
    maxSessions: config.MCP_MAX_SESSIONS,
    a2aSendWaitSeconds: config.A2A_SEND_WAIT_SECONDS,
    providerName: config.PROVIDER_NAME,
    retentionSeconds: config.EXECUTION_TTL_SECONDS,
  });
  const app = createApp({
    readiness: new ReadinessCheck({
      redis,
      keyPrefix: config.KEY_PREFIX,
      timeoutMs: config.REDIS_TIMEOUT_MS,
    }),
    metrics,
    discovery,
    publisher: new SkillPublisher(
      registry,
      schemas,
      config.PROVIDER_SECRETS_KEY === undefined
        ? undefined
        : new ProviderCredentialsStore(redis, keys, config.PROVIDER_SECRETS_KEY),
    ),
    invocations,
    executions,
    canceler,
    history,
    replayer: new ExecutionReplayer({ store, authenticator, invocations, history }),
    streams: new ExecutionStreams({
      identity,
      store,
      watcher,
      quota,
      heartbeatMs: config.STREAM_HEARTBEAT_SECONDS * 1000,
    }),
    callerStreams: new CallerStreams({
      authenticator,
      store,
      feed,
      followers,
      notified,
      quota,
      heartbeatMs: config.STREAM_HEARTBEAT_SECONDS * 1000,
      retentionSeconds: config.EXECUTION_TTL_SECONDS,
    }),
    tasks: new TaskDesk({
      store,
      tasks: new TaskStore(redis, keys),
      registry,
      queues,
      schemas,
      authenticator,
      links: new TaskLinks({
        redis,
        keys,
        ttlSeconds: config.TASK_LINK_TTL_SECONDS,
        ...(config.TASK_LINK_SECRET === undefined ? {} : { secret: config.TASK_LINK_SECRET }),
      }),
      baseUrl: config.PUBLIC_BASE_URL,
    }),
    webhooks: new WebhookDesk({
      webhooks,
      deliveries: new WebhookDeliveries(redis, keys),
      notified,
      queue: queues.webhooks(),
      authenticator,
      urls: webhookUrls,
    }),
    authenticator,
    apiKeys,
    agents,
    fleet: new FleetOverview({ redis, keys, registry, queues }),
    consoleOAuth: consoleOAuthOf(config),
    baseUrl: config.PUBLIC_BASE_URL,
    logger,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    maxJsonDepth: config.MAX_JSON_DEPTH,
    ...(config.TRUST_PROXY === undefined ? {} : { trustProxy: trustProxyOf(config.TRUST_PROXY) }),
    ...(config.QUEUE_DASHBOARD
      ? { queueDashboard: { registry, queues, actions: config.QUEUE_DASHBOARD_ACTIONS } }
      : {}),
  });
  return { app, redis, queues, watcher, feed, notified, agents };
}
