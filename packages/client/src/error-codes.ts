/**
 * The error codes a skillrun service answers (spec 001's and spec 002's catalogue, and the
 * service's own), for completion and exhaustive handling; another provider may answer others.
 * A unit test checks each is in the service's catalogue.
 */
export const SERVICE_ERROR_CODES = [
  'INVALID_INPUT',
  'MISSING_REQUIRED_PARAM',
  'PARAM_OUT_OF_RANGE',
  'AUTH_REQUIRED',
  'ACCESS_DENIED',
  'SKILL_NOT_FOUND',
  'EXECUTION_NOT_FOUND',
  'BATCH_NOT_FOUND',
  'NOT_FOUND',
  'SCHEDULE_NOT_FOUND',
  'SCHEDULE_LIMIT_EXCEEDED',
  'REQUEST_TIMEOUT',
  'EXECUTION_CANCELED',
  'EXECUTION_ENDED',
  'SKILL_VERSION_CONFLICT',
  'IDEMPOTENCY_KEY_IN_USE',
  'IDEMPOTENCY_KEY_REUSED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'HEADERS_TOO_LARGE',
  'RATE_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'NOT_CONFIGURED',
  'WORKER_LOST',
  'TASK_CLAIMED',
  'TASK_DECLINED',
  'TOOL_EXECUTION_FAILED',
  'TOOL_NOT_AVAILABLE',
  'TOOL_TIMEOUT',
  'EXECUTION_TIMEOUT',
  'INVALID_OUTPUT',
  'OUTPUT_TOO_LARGE',
  'PARTIAL_SUCCESS',
  'SEARCH_API_ERROR',
  'FETCH_FAILED',
  'LLM_PROVIDER_ERROR',
  'LLM_REFUSED',
  'STEP_FAILED',
] as const;

export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];
