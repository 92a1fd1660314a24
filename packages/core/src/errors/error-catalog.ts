/**
 * Every error code the service speaks: the spec's catalogue (002 section 31.4, 001 sections
 * 6.5 and 6.6) plus our own. Each is mapped to its HTTP status here and nowhere else.
 */
export const ErrorCatalog = {
  INVALID_INPUT: {
    http: 400,
    recoverable: true,
    summary: 'The request or its inputs do not match the schema.',
  },
  MISSING_REQUIRED_PARAM: { http: 400, recoverable: true, summary: 'A required parameter is missing.' },
  PARAM_OUT_OF_RANGE: { http: 400, recoverable: true, summary: 'A parameter is outside its bounds.' },
  AUTH_REQUIRED: { http: 401, recoverable: true, summary: 'Valid credentials are required.' },
  ACCESS_DENIED: {
    http: 403,
    recoverable: false,
    summary: 'The credentials are valid but lack the scope, grant or ownership this needs.',
  },
  SKILL_NOT_FOUND: {
    http: 404,
    recoverable: false,
    summary: 'No available version of this skill (matching the range, if one was named).',
  },
  EXECUTION_NOT_FOUND: {
    http: 404,
    recoverable: false,
    summary: 'No execution with this id (or it expired).',
  },
  BATCH_NOT_FOUND: {
    http: 404,
    recoverable: false,
    summary: 'No batch with this id that the caller owns (or it expired).',
  },
  WEBHOOK_NOT_FOUND: {
    http: 404,
    recoverable: false,
    summary: 'No webhook (or delivery of it) with this id that the caller owns.',
  },
  SCHEDULE_NOT_FOUND: {
    http: 404,
    recoverable: false,
    summary: 'No schedule with this id that the caller owns.',
  },
  NOT_FOUND: { http: 404, recoverable: false, summary: 'No such endpoint.' },
  OUTPUTS_EXPIRED: {
    http: 410,
    recoverable: false,
    summary:
      "A rerun from a step would reuse outputs that have expired (a step's execution is gone): replay the whole execution.",
  },
  REQUEST_TIMEOUT: {
    http: 408,
    recoverable: true,
    summary: 'The request (headers or body) was not received in time.',
  },
  EXECUTION_CANCELED: {
    http: 409,
    recoverable: false,
    summary: 'The execution was canceled before it ended (status `canceled`).',
  },
  EXECUTION_ENDED: {
    http: 409,
    recoverable: false,
    summary: 'The execution has already ended; canceling it or handing its task in changes nothing.',
  },
  SKILL_VERSION_CONFLICT: {
    http: 409,
    recoverable: false,
    summary: 'This id and version are published with other content (versions are immutable).',
  },
  IDEMPOTENCY_KEY_IN_USE: {
    http: 409,
    recoverable: true,
    summary: 'A request with this Idempotency-Key is still being accepted; retry it.',
  },
  PAYLOAD_TOO_LARGE: { http: 413, recoverable: false, summary: 'The request body is over the size limit.' },
  UNSUPPORTED_MEDIA_TYPE: {
    http: 415,
    recoverable: false,
    summary: 'The request body is not application/json.',
  },
  HEADERS_TOO_LARGE: {
    http: 431,
    recoverable: false,
    summary: 'The request headers are over the size limit.',
  },
  RATE_LIMIT_EXCEEDED: { http: 429, recoverable: true, summary: 'Too many requests; wait and retry.' },
  BUDGET_EXCEEDED: {
    http: 429,
    recoverable: false,
    summary:
      "A budget is spent: the caller's daily one (refused at admission), or context.budget (the execution stopped; details say what was spent).",
  },
  SCHEDULE_LIMIT_EXCEEDED: {
    http: 429,
    recoverable: false,
    summary: 'The caller has MAX_SCHEDULES_PER_CALLER schedules already: delete one first.',
  },
  INTERNAL_ERROR: { http: 500, recoverable: false, summary: 'An unexpected error inside the service.' },
  WORKER_LOST: {
    http: 500,
    recoverable: true,
    summary: 'The workers running the execution kept dying (or losing its lock); it was given up.',
  },
  TASK_CLAIMED: {
    http: 409,
    recoverable: false,
    summary: 'Another caller has claimed this task: only they can complete or decline it.',
  },
  TASK_DECLINED: {
    http: 409,
    recoverable: false,
    summary: 'The person or agent the task went to declined it (the reason is the message).',
  },
  APPROVAL_DECIDED: {
    http: 409,
    recoverable: false,
    summary: 'The approval was decided already (approved, rejected or timed out): nothing was changed.',
  },
  APPROVAL_REJECTED: {
    http: 409,
    recoverable: false,
    summary: 'An approver rejected the execution before it ran (who, and why, in the message); nothing ran.',
  },
  APPROVAL_TIMEOUT: {
    http: 409,
    recoverable: false,
    summary: "No approver decided before the approval's deadline; nothing ran.",
  },
  TOOL_EXECUTION_FAILED: { http: 500, recoverable: true, summary: 'The skill threw an error while running.' },
  INVALID_OUTPUT: {
    http: 500,
    recoverable: false,
    summary: "The skill's output does not match its output schema.",
  },
  OUTPUT_TOO_LARGE: {
    http: 500,
    recoverable: false,
    summary:
      "The skill's output, what it streams or its metadata is over a size limit (MAX_OUTPUT_BYTES; MAX_CHUNK_BYTES a chunk, MAX_STREAM_BYTES an attempt's chunks in all; 4096 bytes ctx.metadata).",
  },
  PARTIAL_SUCCESS: { http: 200, recoverable: true, summary: 'Part of the work succeeded.' },
  SEARCH_API_ERROR: { http: 502, recoverable: true, summary: 'A search API the skill uses failed.' },
  FETCH_FAILED: { http: 502, recoverable: true, summary: 'A fetch the skill made failed.' },
  NOT_CONFIGURED: {
    http: 501,
    recoverable: false,
    summary: 'This service is not set up for the request (the message names the setting).',
  },
  LLM_PROVIDER_ERROR: {
    http: 502,
    recoverable: true,
    summary: 'The LLM provider failed, or kept rate-limiting, after its retries.',
  },
  STEP_FAILED: {
    http: 502,
    recoverable: true,
    summary: 'A step of a composite skill failed; details name the step and its execution.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    http: 422,
    recoverable: false,
    summary: 'This Idempotency-Key came earlier with a different request; use a new key.',
  },
  LLM_REFUSED: { http: 422, recoverable: false, summary: 'The model refused to answer.' },
  TOOL_NOT_AVAILABLE: { http: 503, recoverable: true, summary: 'A tool the skill needs is not available.' },
  SERVICE_UNAVAILABLE: {
    http: 503,
    recoverable: true,
    summary:
      'Redis (the queue) cannot be reached, or a write was not confirmed on ACK_REPLICAS replicas in time; retry.',
  },
  TOOL_TIMEOUT: { http: 504, recoverable: true, summary: 'A tool the skill uses timed out.' },
  EXECUTION_TIMEOUT: { http: 504, recoverable: true, summary: 'The execution ran past its deadline.' },
} as const satisfies Record<string, { http: number; recoverable: boolean; summary: string }>;

export type ErrorCode = keyof typeof ErrorCatalog;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ErrorCatalog, value);
}

export function httpStatusOf(code: ErrorCode): number {
  return ErrorCatalog[code].http;
}
