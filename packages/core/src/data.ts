// @skillrun/core/data: the Redis data layer (connections, scripts, keys, the stores, the queues, the
// registry's records and the readiness of Redis), for the processes that own the data: gateway,
// worker, and the CLI's keys command. The protocol is @skillrun/core.

export { approvalFor } from './approval/approval-for';
export { ApiKeyStore } from './auth/api-key-store';
export {
  type DebouncedLaunch,
  type DurabilityOptions,
  type EngineParts,
  ExecutionEngine,
  type ExecutionEngineOptions,
  ExecutionIds,
  ExecutionLauncher,
  engineOf,
  type InvocationOrigin,
  type LaunchOrigin,
  type LaunchOutcome,
  type LaunchRequest,
  launchInputs,
  type PlacementNeeds,
  placeExecution,
  type ReadSession,
  ReplicaAck,
  type ReplicaAckOptions,
  type RunIds,
  runExecutionId,
  type StatusMoves,
  type StepPlace,
} from './engine';
export { type CheckStatus, notReadyError, ReadinessCheck } from './health/readiness';
export { MemoryStore } from './memory/memory-store';
export { jobDueAt } from './queue/job-due-at';
export { newJobBudget } from './queue/new-job-budget';
export { newJobPayload } from './queue/new-job-payload';
export { queueHeadAges, queueJobsByState } from './queue/queue-levels';
export { QueueRegistry } from './queue/queue-registry';
export {
  SCHEDULE_QUEUE,
  SCHEDULE_TICK,
  SCHEDULE_TICK_OPTIONS,
  type ScheduleTick,
} from './queue/schedule-queue';
export type { ScheduledStart } from './queue/scheduled-start';
export { SkillPauses } from './queue/skill-pauses';
export { type QueuePlace, remoteQueueName, skillJobOptions, skillQueueName } from './queue/skill-queue';
export { type DeliveryJob, deliveryJobOptions, WEBHOOK_QUEUE } from './queue/webhook-queue';
export { coalesceWrites } from './redis/coalesce-writes';
export { createRedis, targetOptions } from './redis/create-redis';
export { execAll } from './redis/exec-all';
export { type RedisAddress, redisAddressOf } from './redis/redis-address';
export { RedisLiveness } from './redis/redis-liveness';
export { type RedisScript, redisScript, type ScriptArg } from './redis/redis-script';
export { parseRedisNodes, type RedisTarget, redisTargetOf } from './redis/redis-target';
export { isRedisUnavailable, RedisUnavailable } from './redis/redis-unavailable';
export { RedisWatch } from './redis/redis-watch';
export { type Coverage, ReplicaCoverage } from './redis/replica-coverage';
export { ReplicaCoverageWatch } from './redis/replica-coverage-watch';
export { untilRedisAnswers } from './redis/while-unavailable';
export { rolloutBucket } from './registry/rollout-bucket';
export { runTargetOf } from './registry/run-target';
export { type ChosenSkill, type ResolvedSkill, SkillResolver } from './registry/skill-resolver';
export { accessOf, authOf, coercionOf, isVisible, toCandidate } from './registry/version-contract';
export { type AuditAnswer, type AuditEntry, type AuditFilter, AuditLog } from './store/audit-log';
export { BatchStore, type StoredBatch } from './store/batch-store';
export { DailySpend } from './store/daily-spend';
export type { ApprovalDecision, DecisionResult } from './store/execution/approval-decisions';
export type { Reservation, TokenCost } from './store/execution/execution-budgets';
export {
  CHUNK_STREAM_MAX_LENGTH,
  type ChunkAppend,
  type ExecutionChunks,
} from './store/execution/execution-chunks';
export type { StepEntry } from './store/execution/execution-record';
export type { ExecutionBrief } from './store/execution/execution-records';
export { ExecutionStore } from './store/execution/execution-store';
export type { AttemptEnd } from './store/execution/execution-transitions';
export { compactPosition, type IndexPosition } from './store/execution/index-position';
export { NANO_DOLLARS, usdOfNano } from './store/execution/nano-dollars';
export { isPastQueueTimeout, neverStartedError } from './store/execution/never-started';
export {
  type TransitionCall,
  type TransitionResult,
  transitionResult,
} from './store/execution/transition-script';
export type { Spent, UsageIncrement } from './store/execution/usage-fields';
export {
  type Admission,
  ConcurrencyGate,
  type GatedExecution,
  type GrantedExecution,
  isGated,
} from './store/flow/concurrency-gate';
export { RateStarts, type StartTaken } from './store/flow/rate-starts';
export { SlotHandover } from './store/flow/slot-handover';
export { FollowedCallers } from './store/followed-callers';
export { InFlightSlots, type SlotClaim } from './store/in-flight-slots';
export type { NotificationStream } from './store/keys/notification-keys';
export { RedisKeys } from './store/keys/redis-keys';
export { ProviderCredentials, ProviderCredentialsStore } from './store/provider-credentials';
export {
  contentDigest,
  type HostedEntry,
  hostedEntry,
  type OperatorApproval,
  type RegistryEntry,
  type RegistryVersion,
  registeredEntry,
} from './store/registry-entry';
export { ShardMap, VSHARDS } from './store/shard-map';
export { SkillRegistry, type VersionRef } from './store/skill-registry';
export { type RolloutState, rolloutView, SkillRollouts } from './store/skill-rollouts';
export { TaskStore } from './store/task-store';
export { WebhookDeliveries } from './store/webhook-deliveries';
export { MAX_TASK_PUSH_CONFIGS, type StoredWebhook, WebhookStore } from './store/webhook-store';
