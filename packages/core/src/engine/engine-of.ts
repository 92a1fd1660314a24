import type { RedisLiveness } from '../redis/redis-liveness';
import type { RedisTarget } from '../redis/redis-target';
import type { DurabilityOptions } from './durable-writes';
import { ExecutionEngine, type ExecutionEngineOptions } from './execution-engine';

/**
 * What a process has built that the engine works over (its connection, keys, store, queues, slots,
 * the liveness of its Redis), and the settings every process reads for it (CommonConfig's).
 */
export interface EngineParts
  extends Pick<ExecutionEngineOptions, 'redis' | 'keys' | 'store' | 'queues' | 'handover' | 'endings'> {
  config: {
    RETRY_BACKOFF_MS: number;
    ACK_REPLICAS: number;
    ACK_TIMEOUT_MS: number;
    REDIS_TIMEOUT_MS: number;
    EXECUTION_TTL_SECONDS: number;
    redisTarget: RedisTarget;
  };
  liveness: RedisLiveness;
  /** BullMQ's spans for the jobs the durable writes' queues add. */
  telemetry?: DurabilityOptions['telemetry'];
}

/**
 * The engine over a process's shared parts, made the same way by the gateway and the worker: with
 * ACK_REPLICAS, what it writes and tells is confirmed on the replicas (ExecutionEngine).
 */
export function engineOf(parts: EngineParts): ExecutionEngine {
  const { redis, keys, store, queues, handover, endings, config, liveness, telemetry } = parts;
  return new ExecutionEngine({
    redis,
    keys,
    store,
    queues,
    handover,
    ...(endings ? { endings } : {}),
    retryBackoffMs: config.RETRY_BACKOFF_MS,
    durability: {
      replicas: config.ACK_REPLICAS,
      timeoutMs: config.ACK_TIMEOUT_MS,
      target: config.redisTarget,
      commandTimeoutMs: config.REDIS_TIMEOUT_MS,
      liveness,
      ...(telemetry === undefined ? {} : { telemetry }),
      ttlSeconds: config.EXECUTION_TTL_SECONDS,
    },
  });
}
