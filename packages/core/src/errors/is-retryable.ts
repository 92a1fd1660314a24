import type { ErrorBody } from '../schemas/error-body';
import { type ErrorCode, isErrorCode } from './error-catalog';

/**
 * Whether the worker should try an execution again after this error. A skill opts out with
 * `recoverable: false`; errors about what the caller sent can never succeed on a second try.
 */
export function isRetryable(error: ErrorBody): boolean {
  if (!error.recoverable) return false;
  return isErrorCode(error.code) ? retryableCode(error.code) : true;
}

function retryableCode(code: ErrorCode): boolean {
  switch (code) {
    case 'INVALID_INPUT':
    case 'MISSING_REQUIRED_PARAM':
    case 'PARAM_OUT_OF_RANGE':
    case 'AUTH_REQUIRED':
    case 'ACCESS_DENIED':
    case 'SKILL_NOT_FOUND':
    case 'EXECUTION_NOT_FOUND':
    case 'BATCH_NOT_FOUND':
    case 'WEBHOOK_NOT_FOUND':
    case 'SCHEDULE_NOT_FOUND':
    case 'SCHEDULE_LIMIT_EXCEEDED':
    case 'NOT_FOUND':
    case 'OUTPUTS_EXPIRED':
    case 'SKILL_VERSION_CONFLICT':
    case 'NOT_CONFIGURED':
    case 'PAYLOAD_TOO_LARGE':
    case 'UNSUPPORTED_MEDIA_TYPE':
    case 'INVALID_OUTPUT':
    case 'OUTPUT_TOO_LARGE':
    case 'PARTIAL_SUCCESS':
    case 'LLM_REFUSED':
    case 'IDEMPOTENCY_KEY_REUSED':
    case 'EXECUTION_CANCELED':
    case 'EXECUTION_ENDED':
    case 'IDEMPOTENCY_KEY_IN_USE':
    case 'REQUEST_TIMEOUT':
    case 'HEADERS_TOO_LARGE':
    case 'TASK_CLAIMED':
    case 'TASK_DECLINED':
    case 'APPROVAL_DECIDED':
    case 'APPROVAL_REJECTED':
    case 'APPROVAL_TIMEOUT':
    case 'BUDGET_EXCEEDED':
      return false;
    case 'RATE_LIMIT_EXCEEDED':
    case 'INTERNAL_ERROR':
    case 'WORKER_LOST':
    case 'TOOL_EXECUTION_FAILED':
    case 'SEARCH_API_ERROR':
    case 'FETCH_FAILED':
    case 'LLM_PROVIDER_ERROR':
    case 'STEP_FAILED':
    case 'TOOL_NOT_AVAILABLE':
    case 'SERVICE_UNAVAILABLE':
    case 'TOOL_TIMEOUT':
    case 'EXECUTION_TIMEOUT':
      return true;
    default: {
      const unhandled: never = code;
      return unhandled;
    }
  }
}
