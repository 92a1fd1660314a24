import type { ServiceErrorCode } from './error-codes.js';
import type { ErrorBody, Execution } from './protocol.js';

/**
 * Codes this client gives to failures that no provider answered (the others are the provider's,
 * spec 001's and spec 002's: AUTH_REQUIRED, EXECUTION_TIMEOUT, INVALID_INPUT, ...).
 */
export type ClientErrorCode =
  /** Every attempt failed to reach the endpoint (network error, or no answer in time). */
  | 'ENDPOINT_UNREACHABLE'
  /** The provider answered something that is not the protocol (not JSON, or a body without the fields). */
  | 'UNEXPECTED_RESPONSE'
  /** wait's `timeoutMs` passed before the execution ended. */
  | 'WAIT_TIMEOUT'
  /** The descriptor names no URL for what was asked (cancel without `x-cancel_url`). */
  | 'NOT_SUPPORTED';

/** A known code, or any other a provider answers. */
export type ErrorCode = ServiceErrorCode | ClientErrorCode | (string & {});

export interface SkillrunErrorInit {
  httpStatus?: number;
  recoverable?: boolean;
  details?: unknown;
  suggestedAction?: string;
  retry?: { suggested_delay_ms?: number; max_attempts?: number };
  execution?: Execution;
  cause?: unknown;
}

/**
 * What every call throws when a provider refuses it or an execution does not complete: `code` is
 * the spec's error code (or one of {@link ClientErrorCode}), never something to parse from text.
 * An aborted call throws its signal's reason instead, as `fetch` does.
 */
export class SkillrunError extends Error {
  override readonly name = 'SkillrunError';
  readonly code: ErrorCode;
  readonly httpStatus?: number;
  readonly recoverable: boolean;
  readonly details?: unknown;
  readonly suggestedAction?: string;
  readonly retry?: { suggested_delay_ms?: number; max_attempts?: number };
  /** The execution whose error this is (invokeAndWait), or the last state seen (WAIT_TIMEOUT). */
  readonly execution?: Execution;

  constructor(code: ErrorCode, message: string, init: SkillrunErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.recoverable = init.recoverable ?? false;
    if (init.httpStatus !== undefined) this.httpStatus = init.httpStatus;
    if (init.details !== undefined) this.details = init.details;
    if (init.suggestedAction !== undefined) this.suggestedAction = init.suggestedAction;
    if (init.retry !== undefined) this.retry = init.retry;
    if (init.execution !== undefined) this.execution = init.execution;
  }

  /**
   * The role a 403 ACCESS_DENIED says the credential lacks (skillrun's roles: viewer, operator,
   * admin), for telling "ask for a stronger key" from other refusals; undefined otherwise.
   */
  get missingRole(): string | undefined {
    const details = this.details as { missing_role?: unknown } | undefined;
    return this.code === 'ACCESS_DENIED' && typeof details?.missing_role === 'string'
      ? details.missing_role
      : undefined;
  }

  /** The error of a spec error body (an HTTP answer's, or an ended execution's). */
  static fromBody(body: ErrorBody, init: SkillrunErrorInit = {}): SkillrunError {
    return new SkillrunError(body.code, body.message, {
      ...init,
      recoverable: body.recoverable ?? init.recoverable ?? false,
      ...(body.details === undefined ? {} : { details: body.details }),
      ...(body.suggested_action === undefined ? {} : { suggestedAction: body.suggested_action }),
      ...(body.retry === undefined ? {} : { retry: body.retry }),
    });
  }
}

/** What a call throws when an answer is not the protocol it expects. */
export function unexpectedResponse(url: string, body: unknown): SkillrunError {
  return new SkillrunError('UNEXPECTED_RESPONSE', `${url} answered something that is not the protocol`, {
    details: body,
  });
}
