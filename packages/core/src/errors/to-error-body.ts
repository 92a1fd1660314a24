import type { ErrorBody } from '../schemas/error-body';
import { SkillError } from './skill-error';

const MAX_MESSAGE_CHARS = 1000;
const MAX_DETAILS_CHARS = 8000;
const CODE_PATTERN = /^[A-Z][A-Z0-9_]{1,63}$/;

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Drops stack traces wherever they are, e.g. from an error whose toJSON includes its stack. */
function withoutStacks(key: string, value: unknown): unknown {
  return key === 'stack' && typeof value === 'string' ? undefined : value;
}

/** String(value), which throws for an object without a prototype (no toString). */
function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function boundedDetails(details: unknown): unknown {
  try {
    const json = JSON.stringify(details, withoutStacks);
    if (json === undefined) return undefined;
    return json.length <= MAX_DETAILS_CHARS
      ? JSON.parse(json)
      : { truncated: bounded(json, MAX_DETAILS_CHARS) };
  } catch {
    return undefined;
  }
}

/**
 * Turns anything thrown (an Error, a SkillError, a plain object, a string) into a bounded,
 * serialisable error body with no stack trace. `fallbackCode` is used when the value has no
 * code of its own.
 */
export function toErrorBody(thrown: unknown, fallbackCode: string): ErrorBody {
  if (thrown instanceof SkillError) return normalise(thrown.toBody(), fallbackCode);
  // A SkillError from another copy of this library (a compiled skill bundles its own) has toBody too.
  const toBody = (thrown as { toBody?: unknown } | null)?.toBody;
  if (typeof toBody === 'function') return toErrorBody({ ...(toBody.call(thrown) as object) }, fallbackCode);
  if (thrown !== null && typeof thrown === 'object') {
    const value = thrown as Record<string, unknown>;
    return normalise(
      {
        code: typeof value.code === 'string' ? value.code : fallbackCode,
        message: typeof value.message === 'string' ? value.message : safeString(thrown),
        recoverable: value.recoverable !== false,
        details: value.details,
        suggested_action: typeof value.suggested_action === 'string' ? value.suggested_action : undefined,
      },
      fallbackCode,
    );
  }
  return normalise({ code: fallbackCode, message: safeString(thrown), recoverable: true }, fallbackCode);
}

function normalise(body: ErrorBody, fallbackCode: string): ErrorBody {
  const details = body.details === undefined ? undefined : boundedDetails(body.details);
  return {
    code: CODE_PATTERN.test(body.code) ? body.code : fallbackCode,
    message: bounded(body.message || 'Unknown error', MAX_MESSAGE_CHARS),
    recoverable: body.recoverable,
    ...(details === undefined ? {} : { details }),
    ...(body.suggested_action ? { suggested_action: bounded(body.suggested_action, MAX_MESSAGE_CHARS) } : {}),
    ...(body.retry ? { retry: body.retry } : {}),
  };
}
