import { type ClusterOptions, type RedisCluster, startCluster } from '@skillrun/redis-server';
import { Client } from './client';
import { type ServiceProcess, type StartedGateway, startGateway, startWorker } from './service-process';
import { startTestRedis, type TestRedis, type TestRedisOptions } from './test-redis';

/**
 * A gateway and workers on a Redis of their own (one server, or a cluster): what each integration
 * test file runs against.
 */
export class TestSystem<R extends TestRedis | RedisCluster = TestRedis> {
  readonly workers: ServiceProcess[] = [];
  /** Gateways besides the first, as replicas behind a load balancer would be. */
  readonly replicas: StartedGateway[] = [];

  private constructor(
    readonly redis: R,
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
    return TestSystem.on(redis, { REDIS_URL: redis.url }, env);
  }

  /** The same on a Redis Cluster of its own (REDIS_CLUSTER_NODES). */
  static async startOnCluster(
    env: Record<string, string> = {},
    clusterOptions: ClusterOptions = { masters: 3 },
  ): Promise<TestSystem<RedisCluster>> {
    const cluster = await startCluster(clusterOptions);
    return TestSystem.on(cluster, cluster.env, env);
  }

  private static async on<R extends TestRedis | RedisCluster>(
    redis: R,
    redisEnv: Record<string, string>,
    env: Record<string, string>,
  ): Promise<TestSystem<R>> {
    const shared = { ...redisEnv, RETRY_BACKOFF_MS: '100', HEARTBEAT_INTERVAL_MS: '500', ...env };
    try {
      const gateway = await startGateway({ ...shared, SKILL_CACHE_MS: '0' });
      return new TestSystem(redis, gateway, shared);
    } catch (error) {
      await redis.stop();
      throw error;
    }
  }

  /** Another gateway on the same Redis (without a skill cache, unless `env` sets SKILL_CACHE_MS). */
  async addGateway(env: Record<string, string> = {}): Promise<StartedGateway> {
    const gateway = await startGateway({ ...this.env, SKILL_CACHE_MS: '0', ...env });
    this.replicas.push(gateway);
    return gateway;
  }

  /** `nodeFlags`: more flags for the worker's node (a test's instruments). */
  async addWorker(
    env: Record<string, string> = {},
    nodeFlags: readonly string[] = [],
  ): Promise<ServiceProcess> {
    const worker = await startWorker({ ...this.env, ...env }, nodeFlags);
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
