import { Client } from './client';
import { type ServiceProcess, type StartedGateway, startGateway, startWorker } from './service-process';
import { startTestRedis, type TestRedis, type TestRedisOptions } from './test-redis';

/** A gateway and workers on a Redis of their own: what each integration test file runs against. */
export class TestSystem {
  readonly workers: ServiceProcess[] = [];
  /** Gateways besides the first, as replicas behind a load balancer would be. */
  readonly replicas: StartedGateway[] = [];

  private constructor(
    readonly redis: TestRedis,
    readonly gateway: StartedGateway,
    readonly env: Record<string, string>,
  ) {}

  get client(): Client {
    return new Client(this.gateway.url);
  }

  static async start(
    env: Record<string, string> = {},
    redisOptions: TestRedisOptions = {},
  ): Promise<TestSystem> {
    const redis = await startTestRedis(redisOptions);
    const shared = { REDIS_URL: redis.url, RETRY_BACKOFF_MS: '100', HEARTBEAT_INTERVAL_MS: '500', ...env };
    const gateway = await startGateway({ ...shared, SKILL_CACHE_MS: '0' });
    return new TestSystem(redis, gateway, shared);
  }

  /** Another gateway on the same Redis (without a skill cache, unless `env` sets SKILL_CACHE_MS). */
  async addGateway(env: Record<string, string> = {}): Promise<StartedGateway> {
    const gateway = await startGateway({ ...this.env, SKILL_CACHE_MS: '0', ...env });
    this.replicas.push(gateway);
    return gateway;
  }

  async addWorker(env: Record<string, string> = {}): Promise<ServiceProcess> {
    const worker = await startWorker({ ...this.env, ...env });
    this.workers.push(worker);
    return worker;
  }

  async stop(): Promise<void> {
    await Promise.all([
      this.gateway.process.stop(),
      ...this.replicas.map((replica) => replica.process.stop()),
      ...this.workers.map((worker) => worker.stop()),
    ]);
    await this.redis.stop();
  }
}
