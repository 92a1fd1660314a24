import type { TObject, TSchema } from '@sinclair/typebox';
import {
  ApiKeyRecord,
  ApprovalDecision,
  ApprovalLink,
  ApprovalListPage,
  ApprovalView,
  AuditPage,
  AuditRecord,
  BatchAccepted,
  BatchRequest,
  BatchView,
  BulkCancelRequest,
  BulkCancelResult,
  BulkReplayResult,
  CallerIdentity,
  CreatedApiKey,
  CreatedWebhook,
  DeliveryListPage,
  DeprecationRequest,
  ErrorEnvelope,
  Execution,
  ExecutionListPage,
  InvocationAccepted,
  InvocationRequest,
  JsonRpcErrorResponse,
  NewApiKey,
  NewSchedule,
  NewWebhook,
  PinRequest,
  ReplayRequest,
  RolloutRequest,
  Schedule,
  ScheduleBackfill,
  ScheduleBackfillAccepted,
  ScheduleChange,
  ScheduleListPage,
  SkillApprovalState,
  SkillApprovalUpdate,
  SkillDescriptor,
  SkillPauseState,
  SkillRollout,
  SkillSearchPage,
  SkillVersionList,
  SkillVersionSummary,
  StreamedChunk,
  TaskCompletion,
  TaskDecline,
  TaskLink,
  TaskListPage,
  TaskView,
  WebhookDelivery,
  WebhookList,
  WebhookView,
} from '@skillrun/core';
import { ProviderCredentials } from '@skillrun/core/data';

export type Json = Record<string, unknown>;

/** The protocol's schemas, published as they are validated: JSON Schema 2020-12 is OpenAPI 3.1's dialect. */
export const schemas: Record<string, TSchema> = {
  ProviderCredentials,
  TaskView,
  TaskListPage,
  TaskLink,
  TaskCompletion,
  TaskDecline,
  SkillDescriptor,
  SkillSearchPage,
  SkillVersionList,
  SkillVersionSummary,
  SkillPauseState,
  SkillRollout,
  RolloutRequest,
  PinRequest,
  SkillApprovalState,
  SkillApprovalUpdate,
  ApprovalView,
  ApprovalListPage,
  ApprovalLink,
  ApprovalDecision,
  DeprecationRequest,
  InvocationRequest,
  InvocationAccepted,
  Execution,
  ExecutionListPage,
  StreamedChunk,
  ReplayRequest,
  BulkReplayResult,
  BatchRequest,
  BatchAccepted,
  BatchView,
  BulkCancelRequest,
  BulkCancelResult,
  ErrorEnvelope,
  JsonRpcErrorResponse,
  NewApiKey,
  CreatedApiKey,
  ApiKeyRecord,
  CallerIdentity,
  NewWebhook,
  CreatedWebhook,
  WebhookView,
  WebhookList,
  WebhookDelivery,
  DeliveryListPage,
  NewSchedule,
  ScheduleChange,
  Schedule,
  ScheduleListPage,
  ScheduleBackfill,
  ScheduleBackfillAccepted,
  AuditRecord,
  AuditPage,
};

export const ref = (name: keyof typeof schemas) => ({ $ref: `#/components/schemas/${name}` });
export const json = (name: keyof typeof schemas) => ({ 'application/json': { schema: ref(name) } });
export const ok = (description: string, name: keyof typeof schemas, headers?: Json) => ({
  description,
  content: json(name),
  ...(headers ? { headers } : {}),
});

/** Every error is the same envelope; the description lists the codes a status carries. */
export const ERRORS: Record<string, string> = {
  '400': 'INVALID_INPUT, MISSING_REQUIRED_PARAM or PARAM_OUT_OF_RANGE; `details` names each path.',
  '401':
    'AUTH_REQUIRED: missing or invalid credentials; `details` has required_auth_type (and authorization_url for oauth2).',
  '403': 'ACCESS_DENIED: valid credentials without the scope, grant or ownership this needs.',
  '404':
    'SKILL_NOT_FOUND, EXECUTION_NOT_FOUND, BATCH_NOT_FOUND, WEBHOOK_NOT_FOUND, SCHEDULE_NOT_FOUND or NOT_FOUND.',
  '409':
    'SKILL_VERSION_CONFLICT: published versions are immutable; IDEMPOTENCY_KEY_IN_USE: a request with this Idempotency-Key is still being accepted (Retry-After); EXECUTION_ENDED: the execution ended before it could be canceled or a task handed in (`details.status` says how); TASK_CLAIMED: another caller has claimed the task; APPROVAL_DECIDED: the approval was decided already (one decision wins).',
  '410': 'OUTPUTS_EXPIRED: a rerun from a step would reuse an output that has expired.',
  '413': 'PAYLOAD_TOO_LARGE.',
  '415': 'UNSUPPORTED_MEDIA_TYPE: send application/json.',
  '422': 'IDEMPOTENCY_KEY_REUSED: this Idempotency-Key came earlier with a different request.',
  '429':
    'RATE_LIMIT_EXCEEDED: over a rate limit or concurrency quota; wait Retry-After seconds. RateLimit-Policy and RateLimit say which. SCHEDULE_LIMIT_EXCEEDED: the caller has MAX_SCHEDULES_PER_CALLER schedules already. BUDGET_EXCEEDED: the caller\'s daily budget (LIMITS daily_budget_usd) is spent until midnight UTC (Retry-After; RateLimit-Policy "daily-budget" in usd-micros).',
  '501': 'NOT_CONFIGURED: this service is not set up for it (the message names the setting).',
  '503':
    'SERVICE_UNAVAILABLE: Redis cannot be reached, or the write was not confirmed on ACK_REPLICAS replicas in time (details.reason not_replicated); retry (Retry-After).',
};
/** draft-ietf-httpapi-ratelimit-headers: sent when the caller has limits configured (LIMITS). */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    description:
      'The quotas that apply, e.g. `"skill-invocations";q=10;w=60, "in-flight";q=5;qu="concurrent-requests"`.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'What is left of each, e.g. `"skill-invocations";r=3;t=42`.',
    schema: { type: 'string' },
  },
};
export const errors = (...statuses: (keyof typeof ERRORS)[]) =>
  Object.fromEntries(statuses.map((status) => [status, { $ref: `#/components/responses/E${status}` }]));

export const DEPRECATION_HEADER = {
  Deprecation: {
    description: 'RFC 9745: present when the version is deprecated, `@<unix seconds>`.',
    schema: { type: 'string' },
  },
};

export const skillId = { name: 'skill_id', in: 'path', required: true, schema: { type: 'string' } };
export const executionId = { name: 'execution_id', in: 'path', required: true, schema: { type: 'string' } };

export function queryParameters(query: TObject): Json[] {
  return Object.entries(query.properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    schema,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
  }));
}
