export {
  A2A_SECURITY_SCHEMES,
  type A2aSkill,
  analyzeStrict,
  MCP_META_KEY,
  type McpTool,
  type McpToolOptions,
  OPENAI_TOOL_NAME,
  type OpenAiChatTool,
  type OpenAiResponsesTool,
  type OpenAiToolMapping,
  openAiToolName,
  type StrictAnalysis,
  ToolDefinitions,
  ToolFormat,
  ToolFormatQuery,
  ToolListQuery,
  toA2aSkill,
  toChatCompletionsTool,
  toMcpTool,
  toOpenAiTool,
  toStructuredContent,
  toToolDefinitions,
  WRAPPED_OUTPUT,
} from './agents';
export { type ApiKeyGrant, ApiKeyStore } from './auth/api-key-store';
export type { Principal } from './auth/principal';
export { CommonConfig } from './config/common-config';
export { ConfigError, parseEnv } from './config/parse-env';
export { toInputSchema, toParameterDefinitions } from './descriptor/parameters';
export {
  type DescriptorContext,
  describeVersion,
  PROTOCOL_VERSION,
  skillUrls,
  toSkillDescriptor,
} from './descriptor/to-skill-descriptor';
export { ErrorCatalog, type ErrorCode, httpStatusOf, isErrorCode } from './errors/error-catalog';
export { isRetryable } from './errors/is-retryable';
export { SkillError, type SkillErrorOptions } from './errors/skill-error';
export { toErrorBody } from './errors/to-error-body';
export {
  type CheckOutcome,
  type CheckStatus,
  notReadyError,
  type Readiness,
  ReadinessCheck,
  type ReadinessCheckName,
  type ReadinessOptions,
} from './health/readiness';
export { refillWithin, TimeoutError, withTimeout } from './health/with-timeout';
export { createLogger, type Logger, redactSecrets } from './logging/create-logger';
export { MemoryStore } from './memory/memory-store';
export { AddressPolicy } from './outbound/address-policy';
export {
  checkedUrl,
  OutboundHttp,
  type OutboundHttpOptions,
  OutboundRefusal,
  type OutboundRequest,
  type OutboundResponse,
} from './outbound/outbound-http';
export {
  type CompiledValue,
  checkPipeline,
  compileTemplates,
  findCallCycle,
  isTruthy,
  type JsonSchema,
  renderValue,
  type SkillSignature,
  type TemplateScope,
} from './pipeline';
export { exitOnStartupError, stopOnSignals } from './process/stop-on-signals';
export { ExecutionLauncher, type LaunchRequest } from './queue/execution-launcher';
export { newJobPayload } from './queue/new-job-payload';
export { queueHeadAges, queueJobsByState } from './queue/queue-levels';
export { QueueRegistry } from './queue/queue-registry';
export {
  type QueuePlace,
  remoteQueueName,
  skillJobOptions,
  skillQueueName,
  skillQueueNames,
} from './queue/skill-queue';
export { type DeliveryJob, deliveryJobOptions, WEBHOOK_QUEUE } from './queue/webhook-queue';
export { coalesceWrites } from './redis/coalesce-writes';
export { createRedis, type RedisConnectionOptions, targetOptions } from './redis/create-redis';
export { type RedisScript, redisScript, type ScriptArg } from './redis/redis-script';
export {
  parseRedisNodes,
  type RedisNode,
  type RedisSettings,
  type RedisTarget,
  redisTargetOf,
} from './redis/redis-target';
export { checkMigrations } from './registry/check-migrations';
export { migrateInputs } from './registry/migrate-inputs';
export {
  pickVersion,
  type Resolution,
  resolveVersion,
  type VersionCandidate,
} from './registry/resolve-version';
export { type RunTarget, runTargetOf } from './registry/run-target';
export { type ResolvedSkill, SkillResolver } from './registry/skill-resolver';
export {
  accessOf,
  authOf,
  coercionOf,
  isVisible,
  migrationsOf,
  toCandidate,
} from './registry/version-contract';
export { parseVersionRange } from './registry/version-range';
export { ApiKeyRecord, CreatedApiKey, NewApiKey } from './schemas/api-key';
export { CallerIdentity } from './schemas/caller-identity';
export { ErrorBody, ErrorEnvelope, ValidationViolation } from './schemas/error-body';
export {
  Execution,
  ExecutionReadQuery,
  ExecutionStatus,
  InvocationAccepted,
  isTerminalStatus,
  LONGEST_WAIT_SECONDS,
  ParentLink,
  StepSummary,
  TaskState,
  TERMINAL_STATUSES,
  type TerminalStatus,
  Timestamps,
  Usage,
} from './schemas/execution';
export { ExecutionEventsQuery, ExecutionListPage, ExecutionListQuery } from './schemas/execution-list';
export { InputMigration, MigrationStep } from './schemas/input-migration';
export { Caller, InvocationContext, InvocationRequest, Priority } from './schemas/invocation-request';
export { JobPayload } from './schemas/job-payload';
export { JsonSchemaObject, StringEnum } from './schemas/json-schema';
export { BulkReplayResult, ReplayRequest } from './schemas/replay-request';
export { SCOPES, Scope } from './schemas/scope';
export { SemVer, VersionRange } from './schemas/semver';
export {
  DeprecationRequest,
  SkillSearchPage,
  SkillSearchQuery,
  SkillVersionList,
  SkillVersionSummary,
  VersionQuery,
} from './schemas/skill-catalog-api';
export { PipelineStep, SkillDefinition, SkillMode, TaskSettings } from './schemas/skill-definition';
export {
  AccessPolicy,
  AuthConfig,
  CapabilityType,
  Deprecation,
  ParameterDefinition,
  SkillDescriptor,
  SkillPublication,
} from './schemas/skill-descriptor';
export { TaskCompletion, TaskDecline, TaskLink, TaskListPage, TaskListQuery, TaskView } from './schemas/task';
export {
  CreatedWebhook,
  DeliveryAttempt,
  DeliveryListPage,
  DeliveryListQuery,
  DeliveryState,
  NewWebhook,
  WebhookDelivery,
  WebhookId,
  WebhookList,
  WebhookMode,
  WebhookSecret,
  WebhookTarget,
  WebhookView,
} from './schemas/webhook';
export {
  ExecutionIndex,
  type IndexEntry,
  type IndexPosition,
  type IndexScope,
} from './store/execution-index';
export type { RecordExtras, StepEntry, UsageIncrement } from './store/execution-record';
export { type AttemptEnd, ExecutionStore, type RemoteState } from './store/execution-store';
export { FollowedCallers } from './store/followed-callers';
export { InFlightSlots, type SlotClaim, type SlotsTaken } from './store/in-flight-slots';
export { isPastQueueTimeout, neverStartedError } from './store/never-started';
export { ProviderCredentials, ProviderCredentialsStore } from './store/provider-credentials';
export { RedisKeys } from './store/redis-keys';
export {
  contentDigest,
  type HostedEntry,
  hostedEntry,
  type RegisteredEntry,
  type RegistryEntry,
  type RegistryVersion,
  registeredEntry,
} from './store/registry-entry';
export {
  type AdvertiseOutcome,
  type ForgetDormantOutcome,
  type RegisterOutcome,
  SkillRegistry,
  type VersionRef,
  type WorkerLease,
} from './store/skill-registry';
export { type ClaimResult, TaskStore } from './store/task-store';
export {
  TRANSITION_LUA,
  type TransitionCall,
  type TransitionResult,
  transitionResult,
} from './store/transition-script';
export { type NewDelivery, WebhookDeliveries } from './store/webhook-deliveries';
export { type StoredWebhook, WebhookStore } from './store/webhook-store';
export { inSpan } from './trace/in-span';
export { activeTraceId, newTraceId, traceIdFromTraceparent } from './trace/trace-id';
export { coerceInputs } from './validation/coerce-inputs';
export { createAjv } from './validation/create-ajv';
export { jsonDepthExceeds } from './validation/json-depth';
export { compileLinearRegExp, linearRegExp } from './validation/linear-reg-exp';
export {
  assertSafeSchema,
  MAX_PATTERN_REPETITIONS,
  MAX_SCHEMA_BYTES,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
} from './validation/schema-guard';
export { SchemaValidator } from './validation/schema-validator';
export {
  type AssertInputsOptions,
  SkillSchemas,
  type SkillSchemasOptions,
  type ValidationResult,
} from './validation/skill-schemas';
export { codeForViolations, type ViolationCode, violationCode } from './validation/violation-code';
export { describeViolations, toViolations } from './validation/violations';
