export { CommonConfig } from './config/common-config';
export { ConfigError, parseEnv } from './config/parse-env';
export { toParameterDefinitions } from './descriptor/parameters';
export {
  type DescriptorContext,
  PROTOCOL_VERSION,
  skillUrls,
  toSkillDescriptor,
} from './descriptor/to-skill-descriptor';
export { ErrorCatalog, type ErrorCode, httpStatusOf, isErrorCode } from './errors/error-catalog';
export { isRetryable } from './errors/is-retryable';
export { SkillError, type SkillErrorOptions } from './errors/skill-error';
export { toErrorBody } from './errors/to-error-body';
export { createLogger, type Logger } from './logging/create-logger';
export { type MemoryEntry, type MemoryHit, MemoryStore } from './memory/memory-store';
export { exitOnStartupError, stopOnSignals } from './process/stop-on-signals';
export { skillJobOptions, skillQueueName } from './queue/skill-queue';
export { createRedis, type RedisConnectionOptions } from './redis/create-redis';
export { ErrorBody, ErrorEnvelope, ValidationViolation } from './schemas/error-body';
export {
  Execution,
  ExecutionStatus,
  InvocationAccepted,
  type TerminalStatus,
  Timestamps,
} from './schemas/execution';
export { Caller, InvocationContext, InvocationRequest, Priority } from './schemas/invocation-request';
export { JobPayload } from './schemas/job-payload';
export { JsonSchemaObject, StringEnum } from './schemas/json-schema';
export { PipelineStep, SkillDefinition, SkillMode } from './schemas/skill-definition';
export { ParameterDefinition, SkillDescriptor } from './schemas/skill-descriptor';
export type { SkillContext, SkillExecutor, SkillLogger, SkillLogLevel } from './skill/skill-context';
export { ExecutionStore, type NewExecution, type TransitionResult } from './store/execution-store';
export { RedisKeys } from './store/redis-keys';
export { SkillCatalog, type WorkerLease } from './store/skill-catalog';
export { newTraceId, traceIdFromTraceparent } from './trace/trace-id';
export { createAjv } from './validation/create-ajv';
export { SchemaValidator } from './validation/schema-validator';
export { SkillSchemas, type ValidationResult } from './validation/skill-schemas';
export { describeViolations, toViolations } from './validation/violations';
