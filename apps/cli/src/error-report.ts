import { SkillrunError } from '@skillrun/client';
import { CliError } from './cli-error';
import { ExitCode } from './exit-codes';
import { detailLines } from './format/detail-lines';
import type { Settings } from './settings';

/** What went wrong, said for a person (and as JSON for scripts), and the exit code it means. */
export interface ErrorReport {
  exitCode: number;
  code: string;
  message: string;
  /** Each field in error, as `path: message`. */
  details: string[];
  /** What to do about it: the service's suggested_action, or ours. */
  hints: string[];
}

const USAGE_CODES = new Set([
  'INVALID_INPUT',
  'MISSING_REQUIRED_PARAM',
  'PARAM_OUT_OF_RANGE',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'IDEMPOTENCY_KEY_REUSED',
]);
const NOT_FOUND_CODES = new Set([
  'SKILL_NOT_FOUND',
  'EXECUTION_NOT_FOUND',
  'BATCH_NOT_FOUND',
  'SCHEDULE_NOT_FOUND',
  'NOT_FOUND',
]);
/** A 429 that waiting does not cure: the command failed. */
const FAILED_CODES = new Set(['SCHEDULE_LIMIT_EXCEEDED']);
const AUTH_CODES = new Set(['AUTH_REQUIRED', 'ACCESS_DENIED']);
const UNAVAILABLE_CODES = new Set(['ENDPOINT_UNREACHABLE', 'SERVICE_UNAVAILABLE', 'RATE_LIMIT_EXCEEDED']);

/** The exit code of a refusal by its code first (the service's catalogue), its HTTP status second. */
export function exitCodeOf(error: SkillrunError): ExitCode {
  if (USAGE_CODES.has(error.code)) return ExitCode.Usage;
  if (NOT_FOUND_CODES.has(error.code)) return ExitCode.NotFound;
  if (AUTH_CODES.has(error.code)) return ExitCode.Auth;
  if (UNAVAILABLE_CODES.has(error.code)) return ExitCode.Unavailable;
  if (FAILED_CODES.has(error.code)) return ExitCode.Failed;
  const status = error.httpStatus;
  if (status === 401 || status === 403) return ExitCode.Auth;
  if (status === 404) return ExitCode.NotFound;
  if (status === 400 || status === 413 || status === 415 || status === 422) return ExitCode.Usage;
  if (status === 429 || status === 502 || status === 503 || status === 504) return ExitCode.Unavailable;
  return ExitCode.Failed;
}

/**
 * `withheldFrom`: the origins the client kept the credentials from, which explain a refusal
 * better than a revoked key would.
 */
export function reportOf(
  error: unknown,
  settings?: Settings,
  withheldFrom: readonly string[] = [],
): ErrorReport {
  if (error instanceof CliError) {
    return {
      exitCode: error.exitCode,
      code: error.exitCode === ExitCode.Usage ? 'USAGE' : 'ERROR',
      message: error.message,
      details: [],
      hints: error.hint === undefined ? [] : [error.hint],
    };
  }
  if (error instanceof SkillrunError) {
    const exitCode = exitCodeOf(error);
    const details = detailLines(error.details);
    return {
      exitCode,
      code: error.code,
      message: error.message,
      details,
      hints: [
        ...(error.suggestedAction === undefined ? [] : [error.suggestedAction]),
        ...ourHints(error, exitCode, details, settings, withheldFrom),
      ],
    };
  }
  return {
    exitCode: ExitCode.Failed,
    code: 'ERROR',
    message: error instanceof Error ? error.message : String(error),
    details: [],
    hints: ['This looks like a bug in skillrun; run with SKILLRUN_DEBUG=1 to see where it happened'],
  };
}

function ourHints(
  error: SkillrunError,
  exitCode: ExitCode,
  details: string[],
  settings: Settings | undefined,
  withheldFrom: readonly string[],
): string[] {
  const url = settings?.baseUrl ?? 'the service';
  switch (exitCode) {
    case ExitCode.Unavailable:
      if (error.code === 'RATE_LIMIT_EXCEEDED') return ['Wait a moment and run it again'];
      if (error.code === 'BUDGET_EXCEEDED')
        return [
          'Your daily budget is spent: wait for midnight UTC (Retry-After), or ask an operator for more',
        ];
      // Only when nothing answered: a 503 came from the service itself, which says what to do.
      return error.code === 'ENDPOINT_UNREACHABLE' && error.httpStatus === undefined
        ? [
            `Is the service running at ${url}? Start it with \`npm start\`, or point --url (SKILLRUN_URL) at it`,
          ]
        : [];
    case ExitCode.Auth:
      if (details.some((line) => line.startsWith('/caller/id'))) {
        return ['Pass the caller id your credentials belong to with --caller (SKILLRUN_CALLER)'];
      }
      if (withheldFrom.length > 0) {
        return [
          `Your credentials were not sent to ${withheldFrom.join(', ')} (not the service at ${url}); point --url (SKILLRUN_URL) at the service these links belong to`,
        ];
      }
      return settings?.apiKey === undefined && settings?.bearerToken === undefined
        ? ['Pass an API key with --api-key (SKILLRUN_API_KEY) or a token with --token (SKILLRUN_TOKEN)']
        : ['Check the credentials (--api-key, --token): they may be revoked, or lack the scope or skill'];
    case ExitCode.NotFound:
      return error.code === 'EXECUTION_NOT_FOUND' || error.code === 'BATCH_NOT_FOUND'
        ? ['List your executions with `skillrun executions`']
        : ['Search the skills with `skillrun skills [words]`'];
    case ExitCode.Usage:
      return details.some((line) => line.startsWith('/inputs'))
        ? ['See the inputs with `skillrun describe <skill>`']
        : [];
    default:
      return [];
  }
}
