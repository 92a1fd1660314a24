export type { ApprovalCalls, ApprovalVerdict } from './approval-calls.js';
export type {
  BatchOptions,
  CallerType,
  CallOptions,
  ClientOptions,
  Credentials,
  InvokeAndWaitOptions,
  InvokeOptions,
  OAuth2Client,
  WaitBatchOptions,
  WaitOptions,
} from './client-options.js';
export { SERVICE_ERROR_CODES, type ServiceErrorCode } from './error-codes.js';
export { EventStreamParser, type ServerSentEvent } from './event-stream-parser.js';
export { eventStreamChunks } from './event-stream-reader.js';
export type { ExecutionHandle, ExecutionRef } from './execution-handle.js';
export {
  type ApprovalLink,
  type ApprovalPage,
  type ApprovalPolicy,
  type ApprovalState,
  type ApprovalView,
  type AuthConfig,
  type BatchAccepted,
  type BatchItem,
  type BatchSlot,
  type BatchView,
  type BulkCancelResult,
  type CallerIdentity,
  type ErrorBody,
  type Execution,
  type ExecutionPage,
  type ExecutionQuery,
  type ExecutionStatus,
  type InvocationAccepted,
  type InvocationContext,
  type InvocationEndpoint,
  isTerminal,
  type NewSchedule,
  type ParameterDefinition,
  type Schedule,
  type ScheduleBackfill,
  type ScheduleBackfillAccepted,
  type ScheduleChange,
  type ScheduleContext,
  type SchedulePage,
  type ScheduleQuery,
  type ScheduleRun,
  type SkillApprovalState,
  type SkillDescriptor,
  type SkillPage,
  type SkillPauseState,
  type SkillrunExecution,
  type SkillSearchQuery,
  type SkillVersionList,
  type TerminalStatus,
  type ToolDefinitions,
  type ToolFormat,
  type ToolQuery,
} from './protocol.js';
export type { SkillInput, SkillOutput, SkillTypes } from './skill-types.js';
export { SkillrunClient, type TypedSkill } from './skillrun-client.js';
export {
  type ClientErrorCode,
  type ErrorCode,
  SkillrunError,
  type SkillrunErrorInit,
} from './skillrun-error.js';
