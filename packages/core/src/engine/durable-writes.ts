import type { Telemetry } from 'bullmq';
import type { Redis } from 'ioredis';
import { QueueRegistry } from '../queue/queue-registry';
import { createRedis } from '../redis/create-redis';
import type { RedisLiveness } from '../redis/redis-liveness';
import type { RedisTarget } from '../redis/redis-target';
import { ExecutionStore } from '../store/execution/execution-store';
import type { RedisKeys } from '../store/keys/redis-keys';
import { TaskStore } from '../store/task-store';
import { ReplicaAck } from './replica-ack';

/** What the engine's writes are confirmed with (ACK_REPLICAS), as the process configured it. */
export interface DurabilityOptions {
  /** How many replicas must hold a write before it is answered (ACK_REPLICAS); 0 answers at once. */
  replicas: number;
  /** How long Redis waits for them (ACK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Where the writes' own connection goes (with replicas): the process's Redis. */
  target: RedisTarget;
  /** What bounds a command of the process's (REDIS_TIMEOUT_MS); the writes' connection adds `timeoutMs`. */
  commandTimeoutMs: number;
  liveness?: RedisLiveness;
  /** BullMQ's spans for the jobs the writes' queues add. */
  telemetry?: Telemetry;
  /** How long an execution's record is kept (EXECUTION_TTL_SECONDS). */
  ttlSeconds: number;
}

/** The process's connection and what it built on it, which the writes share without replicas. */
export interface SharedWrites {
  redis: Redis;
  store: ExecutionStore;
  queues: QueueRegistry;
  keys: RedisKeys;
}

/**
 * Where the writes an answer stands for are made: launches, cancels and task hand-ins, each
 * confirmed on ACK_REPLICAS replicas by `ack` before it is answered. With ACK_REPLICAS=0 (or no
 * durability at all: a worker's steps) these are the shared connection's parts and `ack` confirms
 * at once. Otherwise a connection of their own, so that the WAIT they are confirmed with (which
 * holds its connection until answered: up to ACK_TIMEOUT_MS when a replica is away) holds no read;
 * its commands are bounded by REDIS_TIMEOUT_MS and the one WAIT they may queue behind (see
 * ReplicaAck).
 */
export interface DurableWrites {
  redis: Redis;
  store: ExecutionStore;
  queues: QueueRegistry;
  tasks: TaskStore;
  ack: ReplicaAck;
  /** Closes what is its own (nothing when it shares the connection). */
  close(): Promise<void>;
}

export function durableWrites(options: DurabilityOptions | undefined, shared: SharedWrites): DurableWrites {
  const replicas = options?.replicas ?? 0;
  if (!options || replicas === 0) {
    const { redis, store, queues, keys } = shared;
    return {
      redis,
      store,
      queues,
      tasks: new TaskStore(redis, keys),
      ack: new ReplicaAck(redis, { replicas, timeoutMs: options?.timeoutMs ?? 0 }),
      close: async () => {},
    };
  }
  const { keys } = shared;
  const { timeoutMs } = options;
  const redis = createRedis(options.target, {
    role: 'request',
    commandTimeoutMs: options.commandTimeoutMs + timeoutMs,
    ...(options.liveness ? { liveness: options.liveness } : {}),
  });
  const queues = new QueueRegistry(redis, keys.prefix, options.telemetry, keys.shards.shards);
  return {
    redis,
    store: new ExecutionStore(redis, keys, options.ttlSeconds),
    queues,
    tasks: new TaskStore(redis, keys),
    ack: new ReplicaAck(redis, {
      replicas,
      timeoutMs,
      // One probe in each tag the service writes under: at REDIS_SHARDS>1 on a cluster, each master.
      probeKeys: keys.shards.tags().map((tag) => `${tag}:replica-probe`),
    }),
    close: async () => {
      await queues.close().catch(() => {});
      redis.disconnect();
    },
  };
}
