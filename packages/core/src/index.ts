// @skillrun/core: the protocol (schemas, errors, validation, descriptors, tool formats, pipeline
// templates, version ranges) and what every process shares (config, logging, traces, outbound HTTP,
// shutdown). No Redis: the data layer is @skillrun/core/data, a skill's contract @skillrun/skill.
export {
  analyzeStrict,
  type McpTool,
  OPENAI_TOOL_NAME,
  openAiToolName,
  SKILL_MD_NAME,
  type SkillMdFrontmatter,
  skillMdFrontmatter,
  skillMdName,
  ToolDefinitions,
  ToolFormatQuery,
  ToolListQuery,
  toA2aSkill,
  toAnthropicTool,
  toMcpTool,
  toOpenAiTool,
  toSkillMd,
  toStructuredContent,
  toToolDefinitions,
} from './agents';
export {
  type ApprovalRule,
  ApprovalRuleError,
  assertApprovalPolicy,
  needsApproval,
  parseApprovalRule,
} from './approval/approval-rule';
export { assertRoleFitsScopes } from './auth/key-role';
export type { Principal } from './auth/principal';
export { CommonConfig, checkShardSettings } from './config/common-config';
export { LlmProviderConfig } from './config/llm-provider-config';
export { DEFAULT_PORT, localBaseUrl } from './config/local-base-url';
export { ConfigError, parseEnv } from './config/parse-env';
export { type DescriptorInputs, toDescriptorInputs, toInputSchema } from './descriptor/parameters';
export {
  type DescriptorContext,
  describeVersion,
  PROTOCOL_VERSION,
  skillUrls,
  toSkillDescriptor,
} from './descriptor/to-skill-descriptor';
export { ErrorCatalog, type ErrorCode, httpStatusOf, isErrorCode } from './errors/error-catalog';
export { isRetryable } from './errors/is-retryable';
export { notReplicated, type ReplicatedWrite, statusNotReplicated } from './errors/not-replicated';
export { SkillError } from './errors/skill-error';
export { toErrorBody } from './errors/to-error-body';
export { refillWithin, TimeoutError, withTimeout } from './health/with-timeout';
export { createLogger, type Logger, redactSecrets } from './logging/create-logger';
export { AddressPolicy } from './outbound/address-policy';
export { checkedUrl, OutboundHttp, OutboundRefusal, type OutboundResponse } from './outbound/outbound-http';
export {
  type CompiledValue,
  checkPipeline,
  compileTemplates,
  findCallCycle,
  isTruthy,
  renderValue,
  type TemplateScope,
} from './pipeline';
export { type ListenSettings, listenOn } from './process/listen-on';
export { exitOnStartupError, stopOnSignals } from './process/stop-on-signals';
export { checkMigrations } from './registry/check-migrations';
export { migrateInputs } from './registry/migrate-inputs';
export { pickVersion, resolveVersion, type VersionCandidate } from './registry/resolve-version';
export { parseVersionRange } from './registry/version-range';
export { ApiKeyRecord, CreatedApiKey, NewApiKey } from './schemas/api-key';
export {
  ApprovalDecision,
  ApprovalLink,
  ApprovalListPage,
  ApprovalListQuery,
  ApprovalPolicy,
  ApprovalState,
  ApprovalView,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  SkillApprovalState,
  SkillApprovalUpdate,
} from './schemas/approval';
export {
  AUDIT_ACTIONS,
  AuditAction,
  AuditActor,
  AuditListQuery,
  AuditOutcome,
  AuditPage,
  AuditRecord,
} from './schemas/audit-record';
export {
  BatchAccepted,
  BatchCounts,
  BatchEnvelope,
  BatchItem,
  BatchRequest,
  BatchSlot,
  BatchView,
  MAX_BATCH_ITEMS,
} from './schemas/batch';
export { Budget, BudgetSpend, JobBudget } from './schemas/budget';
export { BulkCancelRequest, BulkCancelResult } from './schemas/bulk-cancel';
export { CallerIdentity } from './schemas/caller-identity';
export { ErrorBody, ErrorEnvelope, JsonRpcErrorResponse, ValidationViolation } from './schemas/error-body';
export {
  Execution,
  ExecutionReadQuery,
  ForkPoint,
  InvocationAccepted,
  isTerminalStatus,
  LONGEST_WAIT_SECONDS,
  StepSummary,
  type TerminalStatus,
} from './schemas/execution';
export {
  ExecutionEventsQuery,
  type ExecutionFilter,
  ExecutionListPage,
  ExecutionListQuery,
} from './schemas/execution-list';
export {
  ExecutionMetadata,
  ExecutionTag,
  ExecutionTags,
  MAX_METADATA_BYTES,
  MAX_TAGS,
} from './schemas/execution-tags';
export { InputMigration } from './schemas/input-migration';
export { type Debounce, InvocationRequest } from './schemas/invocation-request';
export { JobPayload } from './schemas/job-payload';
export { StringEnum } from './schemas/json-schema';
export { BulkReplayRequest, BulkReplayResult, FromStep, ReplayRequest } from './schemas/replay-request';
export { ROLES, Role } from './schemas/role';
export {
  NewSchedule,
  Schedule,
  ScheduleBackfill,
  ScheduleBackfillAccepted,
  ScheduleChange,
  ScheduleId,
  ScheduleListPage,
  ScheduleListQuery,
  ScheduleOverlap,
  ScheduleRun,
  ScheduleRunOutcome,
  SHORTEST_EVERY_MS,
} from './schemas/schedule';
export { SCOPES, Scope } from './schemas/scope';
export { SemVer } from './schemas/semver';
export {
  DeprecationRequest,
  SkillSearchPage,
  SkillSearchQuery,
  SkillVersionList,
  SkillVersionSummary,
  VersionQuery,
} from './schemas/skill-catalog-api';
export {
  ConcurrencySettings,
  PipelineStep,
  RateLimitSettings,
  SkillDefinition,
  SkillMode,
} from './schemas/skill-definition';
export {
  AccessPolicy,
  AuthConfig,
  CapabilityType,
  Deprecation,
  ParameterDefinition,
  SkillDescriptor,
  SkillPublication,
} from './schemas/skill-descriptor';
export { capabilityTypeOf, type SkillKind } from './schemas/skill-kind';
export { SkillPause, SkillPauseState } from './schemas/skill-pause';
export {
  PinnedCaller,
  PinRequest,
  RolloutRequest,
  SkillRamp,
  SkillRollout,
  type VersionChoice,
  VersionPin,
} from './schemas/skill-rollout';
export { StreamedChunk } from './schemas/streamed-chunk';
export { TaskCompletion, TaskDecline, TaskLink, TaskListPage, TaskListQuery, TaskView } from './schemas/task';
export {
  CreatedWebhook,
  DeliveryListPage,
  DeliveryListQuery,
  DeliveryState,
  NewWebhook,
  WebhookDelivery,
  WebhookList,
  WebhookMode,
  WebhookTarget,
  WebhookView,
} from './schemas/webhook';
export { inSpan } from './trace/in-span';
export { activeTraceId, newTraceId, traceIdFromTraceparent } from './trace/trace-id';
export { coerceInputs } from './validation/coerce-inputs';
export { createAjv } from './validation/create-ajv';
export { jsonDepthExceeds } from './validation/json-depth';
export { compileLinearRegExp } from './validation/linear-reg-exp';
export {
  assertSafeSchema,
  MAX_SCHEMA_BYTES,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
} from './validation/schema-guard';
export { SchemaValidator } from './validation/schema-validator';
export { SkillSchemas } from './validation/skill-schemas';
export { codeForViolations } from './validation/violation-code';
export { describeViolations } from './validation/violations';
