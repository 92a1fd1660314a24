import {
  createRedis,
  ExecutionStore,
  QueueRegistry,
  type RedisKeys,
  type RedisLiveness,
  ReplicaAck,
} from '@skillrun/core/data';
import { queueTelemetry } from '@skillrun/telemetry';
import type { Redis } from 'ioredis';
import type { GatewayConfig } from './config';

/**
 * Where the writes a 202 (or a cancel's or a hand-in's answer) stands for are made: launches,
 * cancels and task hand-ins, each confirmed on ACK_REPLICAS replicas by `ack` before it is
 * answered. With ACK_REPLICAS=0 these are the shared connection's parts and `ack` confirms at
 * once. Otherwise a connection of their own, so that the WAIT they are confirmed with (which holds
 * its connection until answered: up to ACK_TIMEOUT_MS when a replica is away) holds no read; its
 * commands are bounded by REDIS_TIMEOUT_MS and the one WAIT they may queue behind (see ReplicaAck).
 */
export interface DurableWrites {
  redis: Redis;
  store: ExecutionStore;
  queues: QueueRegistry;
  ack: ReplicaAck;
  /** Closes what is its own (nothing when it shares the connection). */
  close(): Promise<void>;
}

export interface SharedWrites {
  redis: Redis;
  store: ExecutionStore;
  queues: QueueRegistry;
  keys: RedisKeys;
  liveness: RedisLiveness;
}

export function durableWrites(config: GatewayConfig, shared: SharedWrites): DurableWrites {
  const { ACK_REPLICAS: replicas, ACK_TIMEOUT_MS: timeoutMs } = config;
  if (replicas === 0) {
    const { redis, store, queues } = shared;
    return {
      redis,
      store,
      queues,
      ack: new ReplicaAck(redis, { replicas, timeoutMs }),
      close: async () => {},
    };
  }
  const redis = createRedis(config.redisTarget, {
    role: 'request',
    commandTimeoutMs: config.REDIS_TIMEOUT_MS + timeoutMs,
    liveness: shared.liveness,
  });
  const queues = new QueueRegistry(redis, config.KEY_PREFIX, queueTelemetry(), config.REDIS_SHARDS);
  return {
    redis,
    store: new ExecutionStore(redis, shared.keys, config.EXECUTION_TTL_SECONDS),
    queues,
    ack: new ReplicaAck(redis, {
      replicas,
      timeoutMs,
      // One probe in each tag the service writes under: at REDIS_SHARDS>1 on a cluster, each master.
      probeKeys: shared.keys.shards.tags().map((tag) => `${tag}:replica-probe`),
    }),
    close: async () => {
      await queues.close().catch(() => {});
      redis.disconnect();
    },
  };
}
