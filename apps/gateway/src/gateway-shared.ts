import { type DescriptorContext, type Logger, SkillSchemas } from '@skillrun/core';
import {
  ApiKeyStore,
  ConcurrencyGate,
  createRedis,
  type ExecutionEngine,
  ExecutionStore,
  engineOf,
  FollowedCallers,
  QueueRegistry,
  RedisKeys,
  RedisLiveness,
  SkillPauses,
  SkillRegistry,
  SkillRollouts,
  SlotHandover,
  WebhookStore,
} from '@skillrun/core/data';
import { queueTelemetry } from '@skillrun/telemetry';
import type { Redis } from 'ioredis';
import { authenticatorOf } from './auth/authenticator-of';
import { Identities } from './auth/identities';
import { SkillAccess } from './auth/skill-access';
import { descriptorContext, type GatewayConfig } from './config';
import { ExecutionWatcher } from './executions/execution-watcher';
import { NotifiedCallers } from './invocations/notified-callers';
import { GatewayMetrics } from './metrics/gateway-metrics';
import { WebhookUrlCheck } from './webhooks/webhook-url-check';

/**
 * What the gateway's slices share: its configuration, the one Redis connection and the stores over
 * it, who the caller is, and the gateway-wide watchers (each opens a connection of its own).
 */
export interface GatewayShared {
  config: GatewayConfig;
  logger: Logger;
  /** Closed once the server has stopped: the connection, its producers, the waiters' subscriber. */
  redis: Redis;
  /** Watches every connection of the process for a Redis that stopped answering (one line per incident). */
  liveness: RedisLiveness;
  /**
   * An execution's life: placed, launched, canceled, a task handed in, and what is read of it told,
   * each confirmed on ACK_REPLICAS replicas (the engine's own connection then).
   */
  engine: ExecutionEngine;
  keys: RedisKeys;
  queues: QueueRegistry;
  registry: SkillRegistry;
  /** The skills an operator paused, and the hold of their queues. */
  pauses: SkillPauses;
  /** The skills' rollouts: the versions ramped, and the callers pinned. */
  rollouts: SkillRollouts;
  schemas: SkillSchemas;
  store: ExecutionStore;
  /** Hands on the concurrency slots of an execution this gateway ends (canceled, or past its queue timeout). */
  handover: SlotHandover;
  descriptors: DescriptorContext;
  access: SkillAccess;
  apiKeys: ApiKeyStore;
  identities: Identities;
  webhooks: WebhookStore;
  webhookUrls: WebhookUrlCheck;
  followers: FollowedCallers;
  /** Which callers have standing webhooks or followers: read before the first invocation, then every while. */
  notified: NotifiedCallers;
  watcher: ExecutionWatcher;
  metrics: GatewayMetrics;
}

/**
 * One Redis connection shared by everything, whose command timeout (REDIS_TIMEOUT_MS) bounds what
 * each request asks of Redis, and what the slices build on it.
 */
export function buildShared(config: GatewayConfig, logger: Logger): GatewayShared {
  const liveness = new RedisLiveness({
    intervalMs: config.REDIS_LIVENESS_MS,
    target: config.redisTarget,
    logger,
  });
  const redis = createRedis(config.redisTarget, {
    role: 'request',
    commandTimeoutMs: config.REDIS_TIMEOUT_MS,
    liveness,
  });
  const keys = new RedisKeys(config.KEY_PREFIX, config.REDIS_SHARDS);
  const queues = new QueueRegistry(redis, config.KEY_PREFIX, queueTelemetry(), config.REDIS_SHARDS);
  const registry = new SkillRegistry(redis, keys);
  const pauses = new SkillPauses({ redis, keys, queues, registry });
  const descriptors = descriptorContext(config);
  const apiKeys = new ApiKeyStore(redis, keys, config.API_KEY_CACHE_MS);
  const webhooks = new WebhookStore(redis, keys, config.EXECUTION_TTL_SECONDS);
  const followers = new FollowedCallers(redis, keys);
  const handover = new SlotHandover(new ConcurrencyGate(redis, keys), queues);
  const store = new ExecutionStore(redis, keys, config.EXECUTION_TTL_SECONDS, {
    expired: (id) => handover.ended(id),
  });
  const watcher = new ExecutionWatcher({
    open: () => redis.duplicate(),
    keys,
    maxWatches: config.MAX_WAITERS,
  });
  return {
    config,
    logger,
    redis,
    liveness,
    keys,
    queues,
    registry,
    pauses,
    rollouts: new SkillRollouts(redis, keys),
    schemas: new SkillSchemas(),
    store,
    handover,
    engine: engineOf({ config, redis, keys, store, queues, handover, liveness, telemetry: queueTelemetry() }),
    descriptors,
    access: new SkillAccess(descriptors.defaults),
    apiKeys,
    identities: new Identities(authenticatorOf(config, apiKeys, logger)),
    webhooks,
    webhookUrls: new WebhookUrlCheck(config.OUTBOUND_ALLOW?.split(',') ?? []),
    followers,
    notified: new NotifiedCallers({
      webhooks,
      followers,
      redis,
      open: () => redis.duplicate(),
      keys,
    }),
    watcher,
    metrics: new GatewayMetrics(
      { registry, queues, pauses, timeoutMs: config.REDIS_TIMEOUT_MS },
      () => watcher.waiting,
    ),
  };
}
