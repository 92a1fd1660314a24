import type { ErrorCode } from '../errors/error-catalog';
import type { ValidationViolation } from '../schemas/error-body';

/** The spec 002 input error codes a violation (or a list of them) is reported under. */
export type ViolationCode = Extract<
  ErrorCode,
  'INVALID_INPUT' | 'MISSING_REQUIRED_PARAM' | 'PARAM_OUT_OF_RANGE'
>;

const RANGE_KEYWORDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);

/** The code of one violation, from the ajv keyword that failed. */
export function violationCode(keyword: string): ViolationCode {
  if (keyword === 'required') return 'MISSING_REQUIRED_PARAM';
  return RANGE_KEYWORDS.has(keyword) ? 'PARAM_OUT_OF_RANGE' : 'INVALID_INPUT';
}

/**
 * The code of a failed validation as a whole: a missing parameter is what the caller must fix
 * first; only when every problem is a bound does the whole count as out of range.
 */
export function codeForViolations(violations: readonly ValidationViolation[]): ViolationCode {
  if (violations.some((violation) => violation.code === 'MISSING_REQUIRED_PARAM')) {
    return 'MISSING_REQUIRED_PARAM';
  }
  const allInRange =
    violations.length > 0 && violations.every((violation) => violation.code === 'PARAM_OUT_OF_RANGE');
  return allInRange ? 'PARAM_OUT_OF_RANGE' : 'INVALID_INPUT';
}
