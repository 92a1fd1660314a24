import { createServer, type Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { createLogger, type Logger, listenOn } from '@skillrun/core';
import { RedisWatch } from '@skillrun/core/data';
import type { GatewayConfig } from './config';
import { buildGateway, type GatewayParts } from './gateway-parts';
import { answerClientErrors } from './http/client-error-answer';

/**
 * How long a start waits for Redis before listening: a Redis that answers is connected to first (else
 * the first requests met a connection still connecting, and a 503); one that does not is waited for
 * while the gateway listens, alive, saying what it misses (/readyz) and answering 503 where it needs it.
 */
const REDIS_START_WAIT_MS = 2000;

/** A gateway process' lifecycle: built and listening on start, and an orderly close. */
export class GatewayService {
  readonly logger: Logger;
  private server: Server | undefined;
  private parts: GatewayParts | undefined;
  private redisWatch: RedisWatch | undefined;

  constructor(
    private readonly config: GatewayConfig,
    logger?: Logger,
  ) {
    this.logger = logger ?? createLogger('gateway', config.LOG_LEVEL);
  }

  /** Starts listening; resolves with the port (useful when PORT is 0). */
  async start(): Promise<number> {
    const { config } = this;
    this.parts = buildGateway(config, this.logger);
    this.redisWatch = new RedisWatch(this.parts.shared.redis, {
      target: config.redisTarget,
      logger: this.logger,
    });
    this.redisWatch.start();
    await Promise.race([this.redisWatch.ready, delay(REDIS_START_WAIT_MS, undefined, { ref: false })]);
    // Read before the first invocation is accepted, so that none misses a standing webhook or a follower.
    await this.parts.shared.notified.start();
    for (const slice of this.parts.slices) await slice.start?.();
    const server = createServer(this.parts.app);
    // Slow-loris clients that trickle a request in are cut off.
    server.headersTimeout = config.HEADERS_TIMEOUT_MS;
    server.requestTimeout = config.REQUEST_TIMEOUT_MS;
    // Node's 5 s would close idle connections a load balancer or a client still counts on, and a
    // request sent on one as it closes meets a reset.
    server.keepAliveTimeout = config.KEEP_ALIVE_TIMEOUT_MS;
    answerClientErrors(server);
    this.server = server;
    // The address bound, not the one asked for: who can reach this gateway (127.0.0.1: this machine only).
    const { address, port } = await listenOn(server, config.PORT, config.HOST, {
      port: 'PORT',
      host: 'HOST',
    });
    this.logger.info({ host: address, port, base_url: config.PUBLIC_BASE_URL }, 'gateway listening');
    return port;
  }

  /**
   * Stops accepting connections, lets in-flight requests finish, then disconnects. Waiting requests
   * are answered at once with what they read then. A keep-alive connection is closed as soon as its
   * request is answered (Node would wait for it to time out).
   */
  async close(): Promise<void> {
    this.redisWatch?.close();
    this.parts?.shared.watcher.close();
    this.parts?.shared.notified.close();
    for (const slice of this.parts?.slices ?? []) await slice.close?.();
    const server = this.server;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      await closed;
      clearInterval(sweep);
    }
    await this.parts?.shared.engine.close();
    await this.parts?.shared.queues.close().catch(() => {});
    this.parts?.shared.redis.disconnect();
  }
}
