import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApiKeyStore,
  createLogger,
  createRedis,
  ExecutionLauncher,
  ExecutionStore,
  InFlightSlots,
  isVisible,
  type Logger,
  QueueRegistry,
  ReadinessCheck,
  RedisKeys,
  SkillRegistry,
  SkillResolver,
  SkillSchemas,
} from '@skillrun/core';
import type { Redis } from 'ioredis';
import { createApp } from './app';
import { Authenticator } from './auth/authenticator';
import { CustomAuthorizer } from './auth/custom-authorizer';
import { JwtVerifier } from './auth/jwt-verifier';
import { SkillAccess } from './auth/skill-access';
import { descriptorContext, type GatewayConfig, trustProxyOf } from './config';
import { ExecutionReader } from './execution-reader';
import { ExecutionWatcher } from './execution-watcher';
import { InvocationService } from './invocation-service';
import { CallerLimits } from './limits/caller-limits';
import { GatewayMetrics } from './metrics/gateway-metrics';
import { SkillDiscovery } from './skill-discovery';
import { SkillPublisher } from './skill-publisher';

/** A gateway process: one Redis connection, the HTTP server, and an orderly close. */
export class GatewayService {
  readonly logger: Logger;
  private server: Server | undefined;
  private redis: Redis | undefined;
  private queues: QueueRegistry | undefined;
  private watcher: ExecutionWatcher | undefined;

  constructor(
    private readonly config: GatewayConfig,
    logger?: Logger,
  ) {
    this.logger = logger ?? createLogger('gateway', config.LOG_LEVEL);
  }

  /** Starts listening; resolves with the port (useful when PORT is 0). */
  async start(): Promise<number> {
    const { config } = this;
    const redis = createRedis(config.redisTarget, {
      role: 'request',
      commandTimeoutMs: config.REDIS_TIMEOUT_MS,
    });
    this.redis = redis;
    const keys = new RedisKeys(config.KEY_PREFIX);
    const queues = new QueueRegistry(redis, config.KEY_PREFIX);
    this.queues = queues;
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
              logger: this.logger,
            }),
          }
        : {}),
      logger: this.logger,
    });
    const invocations = new InvocationService({
      resolver: new SkillResolver(
        registry,
        (entry) => isVisible(entry, config.DEFAULT_SKILL_ACCESS),
        config.SKILL_CACHE_MS,
      ),
      launcher: new ExecutionLauncher({
        store,
        queues,
        retryBackoffMs: config.RETRY_BACKOFF_MS,
      }),
      schemas,
      access,
      limits: new CallerLimits(config.limits, redis, keys, new InFlightSlots(redis, keys)),
      defaultAuth: descriptors.defaults.auth,
      redisTimeoutMs: config.REDIS_TIMEOUT_MS,
    });
    const watcher = new ExecutionWatcher({
      open: () => redis.duplicate(),
      keys,
      maxWatches: config.MAX_WAITERS,
    });
    this.watcher = watcher;
    const app = createApp({
      readiness: new ReadinessCheck({
        redis,
        keyPrefix: config.KEY_PREFIX,
        timeoutMs: config.REDIS_TIMEOUT_MS,
      }),
      metrics: new GatewayMetrics(),
      discovery: new SkillDiscovery(registry, descriptors, access),
      publisher: new SkillPublisher(registry, schemas),
      invocations,
      executions: new ExecutionReader({
        store,
        watcher,
        redisTimeoutMs: config.REDIS_TIMEOUT_MS,
        maxWaitSeconds: config.MAX_WAIT_SECONDS,
      }),
      authenticator,
      apiKeys,
      baseUrl: config.PUBLIC_BASE_URL,
      logger: this.logger,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      maxJsonDepth: config.MAX_JSON_DEPTH,
      redisTimeoutMs: config.REDIS_TIMEOUT_MS,
      ...(config.TRUST_PROXY === undefined ? {} : { trustProxy: trustProxyOf(config.TRUST_PROXY) }),
      ...(config.QUEUE_DASHBOARD
        ? { queueDashboard: { registry, queues, actions: config.QUEUE_DASHBOARD_ACTIONS } }
        : {}),
    });
    const server = app.listen(config.PORT, config.HOST);
    // Slow-loris clients that trickle a request in are cut off.
    server.headersTimeout = config.HEADERS_TIMEOUT_MS;
    server.requestTimeout = config.REQUEST_TIMEOUT_MS;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    const port = (server.address() as AddressInfo).port;
    this.logger.info({ port, base_url: config.PUBLIC_BASE_URL }, 'gateway listening');
    return port;
  }

  /**
   * Stops accepting connections, lets in-flight requests finish, then disconnects. Waiting requests
   * are answered at once with what they read then. A keep-alive connection is closed as soon as its
   * request is answered (Node would wait for it to time out).
   */
  async close(): Promise<void> {
    this.watcher?.close();
    const server = this.server;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      await closed;
      clearInterval(sweep);
    }
    await this.queues?.close().catch(() => {});
    this.redis?.disconnect();
  }
}
