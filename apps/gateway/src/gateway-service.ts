import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createLogger,
  createRedis,
  ExecutionLauncher,
  ExecutionStore,
  isVisible,
  type Logger,
  QueueRegistry,
  RedisKeys,
  SkillRegistry,
  SkillResolver,
  SkillSchemas,
} from '@skillrun/core';
import type { Redis } from 'ioredis';
import { createApp } from './app';
import { descriptorContext, type GatewayConfig } from './config';
import { InvocationService } from './invocation-service';
import { SkillDiscovery } from './skill-discovery';
import { SkillPublisher } from './skill-publisher';

/** A gateway process: one Redis connection, the HTTP server, and an orderly close. */
export class GatewayService {
  readonly logger: Logger;
  private server: Server | undefined;
  private redis: Redis | undefined;
  private queues: QueueRegistry | undefined;

  constructor(
    private readonly config: GatewayConfig,
    logger?: Logger,
  ) {
    this.logger = logger ?? createLogger('gateway', config.LOG_LEVEL);
  }

  /** Starts listening; resolves with the port (useful when PORT is 0). */
  async start(): Promise<number> {
    const { config } = this;
    const redis = createRedis(config.REDIS_URL, {
      role: 'request',
      commandTimeoutMs: config.REDIS_TIMEOUT_MS,
    });
    this.redis = redis;
    const keys = new RedisKeys(config.KEY_PREFIX);
    this.queues = new QueueRegistry(redis, config.KEY_PREFIX);
    const registry = new SkillRegistry(redis, keys);
    const schemas = new SkillSchemas();
    const descriptors = descriptorContext(config);
    const store = new ExecutionStore(redis, keys, config.EXECUTION_TTL_SECONDS);
    const invocations = new InvocationService({
      resolver: new SkillResolver(
        registry,
        (entry) => isVisible(entry, config.DEFAULT_SKILL_ACCESS),
        config.SKILL_CACHE_MS,
      ),
      store,
      launcher: new ExecutionLauncher({
        store,
        queues: this.queues,
        retryBackoffMs: config.RETRY_BACKOFF_MS,
      }),
      schemas,
      redisTimeoutMs: config.REDIS_TIMEOUT_MS,
    });
    const app = createApp({
      redis,
      discovery: new SkillDiscovery(registry, descriptors),
      publisher: new SkillPublisher(registry, schemas),
      invocations,
      baseUrl: config.PUBLIC_BASE_URL,
      logger: this.logger,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      maxJsonDepth: config.MAX_JSON_DEPTH,
      redisTimeoutMs: config.REDIS_TIMEOUT_MS,
    });
    const server = app.listen(config.PORT, config.HOST);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    const port = (server.address() as AddressInfo).port;
    this.logger.info({ port, base_url: config.PUBLIC_BASE_URL }, 'gateway listening');
    return port;
  }

  /** Stops accepting connections, lets in-flight requests finish, then disconnects. */
  async close(): Promise<void> {
    const server = this.server;
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    }
    await this.queues?.close().catch(() => {});
    this.redis?.disconnect();
  }
}
