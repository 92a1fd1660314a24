import type { Logger, SkillSchemas } from '@skillrun/core';
import {
  ConcurrencyGate,
  createRedis,
  DailySpend,
  type ExecutionEngine,
  ExecutionStore,
  engineOf,
  QueueRegistry,
  RedisKeys,
  RedisLiveness,
  SkillRegistry,
  SlotHandover,
} from '@skillrun/core/data';
import { queueTelemetry } from '@skillrun/telemetry';
import type { Redis } from 'ioredis';
import type { WorkerConfig } from './config';
import type { RunningJobs } from './consumers/running-jobs';
import type { WorkerMetrics } from './metrics/worker-metrics';
import type { StreamLimits } from './streaming/stream-budget';

/** What the worker service hands its composition: its settings and what it keeps for itself. */
export interface WorkerContext {
  config: WorkerConfig;
  logger: Logger;
  metrics: WorkerMetrics;
  running: RunningJobs;
  env: NodeJS.ProcessEnv;
}

/**
 * What the worker's parts share: the process's queue connection (on which the store goes, and on
 * one server the consumers and the outcomes' writes too: see `endings`) and the stores and queues
 * over it.
 */
export interface WorkerShared extends WorkerContext {
  /** Watches every connection of the process: this one, and its duplicates (BullMQ's too). */
  liveness: RedisLiveness;
  redis: Redis;
  keys: RedisKeys;
  registry: SkillRegistry;
  queues: QueueRegistry;
  schemas: SkillSchemas;
  /** The skills' concurrency slots (skill.json `concurrency`). */
  gate: ConcurrencyGate;
  /** Promotes the jobs of parked executions given their slots. */
  handover: SlotHandover;
  store: ExecutionStore;
  /** Callers' spend per day, for those with a daily budget (a job's daily_spend_of). */
  dailySpend: DailySpend;
  /**
   * Its composites' steps' places and launches, and whether a status may be told (a webhook's):
   * confirmed on ACK_REPLICAS replicas on a connection of its own, closed by the service.
   */
  engine: ExecutionEngine;
  /**
   * Where BullMQ's ends of jobs go, with the outcomes written just before them (the consumers'
   * connection). On one server the shared connection, which keeps their order (ioredis sends again
   * what was out, in order). On a cluster a connection of its own whose lost commands are answered
   * to the caller (createRedis' callerRetries), for the consumer to send an outcome and its job's end
   * again itself, in order (QueueConsumer): the client would send each again on its own.
   */
  endings: Redis;
  /** How much an attempt may stream (MAX_CHUNK_BYTES, MAX_STREAM_BYTES). */
  stream: StreamLimits;
}

/** The queue connection, which waits while Redis is away, and what the parts build on it. */
export function buildShared(context: WorkerContext, schemas: SkillSchemas): WorkerShared {
  const { config, logger } = context;
  const liveness = new RedisLiveness({
    intervalMs: config.REDIS_LIVENESS_MS,
    target: config.redisTarget,
    logger,
  });
  const redis = createRedis(config.redisTarget, { role: 'queue', liveness });
  const keys = new RedisKeys(config.KEY_PREFIX, config.REDIS_SHARDS);
  const registry = new SkillRegistry(redis, keys);
  const queues = new QueueRegistry(redis, config.KEY_PREFIX, queueTelemetry(), config.REDIS_SHARDS);
  const gate = new ConcurrencyGate(redis, keys);
  const handover = new SlotHandover(gate, queues);
  const store = new ExecutionStore(redis, keys, config.EXECUTION_TTL_SECONDS, {
    expired: (id) => handover.ended(id),
  });
  const endings = config.redisTarget.cluster
    ? createRedis(config.redisTarget, { role: 'queue', liveness, callerRetries: true })
    : redis;
  const engine = engineOf({
    ...(endings === redis
      ? {}
      : { endings: new ExecutionStore(endings, keys, config.EXECUTION_TTL_SECONDS) }),
    config,
    redis,
    keys,
    store,
    queues,
    handover,
    liveness,
    telemetry: queueTelemetry(),
  });
  return {
    ...context,
    liveness,
    redis,
    endings,
    keys,
    registry,
    queues,
    schemas,
    gate,
    handover,
    store,
    dailySpend: new DailySpend(redis, keys),
    engine,
    stream: { maxChunkBytes: config.MAX_CHUNK_BYTES, maxStreamBytes: config.MAX_STREAM_BYTES },
  };
}
