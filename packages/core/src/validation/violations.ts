import type { ErrorObject } from 'ajv';
import type { ValidationViolation } from '../schemas/error-body';
import { pointerToken } from './pointer-token';
import { violationCode } from './violation-code';

const MAX_VIOLATIONS = 50;
const MAX_QUOTED_CHARS = 40;

/** One violation per ajv error, each naming its path as a JSON Pointer under `basePath`. */
export function toViolations(errors: ErrorObject[] | null | undefined, basePath = ''): ValidationViolation[] {
  return (errors ?? []).slice(0, MAX_VIOLATIONS).map((error) => {
    const missing = error.keyword === 'required' ? `/${pointerToken(error.params.missingProperty)}` : '';
    const extra =
      error.keyword === 'additionalProperties' ? `/${pointerToken(error.params.additionalProperty)}` : '';
    const path = `${basePath}${error.instancePath}${missing}${extra}` || '/';
    return { path, message: messageOf(error), code: violationCode(error.keyword) };
  });
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a declared property';
    case 'enum':
      return `must be one of ${JSON.stringify(error.params.allowedValues)}`;
    case 'type': {
      const expected = [error.params.type].flat().join(' or ');
      // Only an ajv created with `verbose` puts the offending data on its errors.
      return 'data' in error ? `must be ${expected} (got ${sent(error.data)})` : `must be ${expected}`;
    }
    default:
      return error.message ?? 'is invalid';
  }
}

/** What the caller sent, briefly: `string "abc"`, `number 7`, `null`, `object`. */
function sent(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const shown = value.length > MAX_QUOTED_CHARS ? `${value.slice(0, MAX_QUOTED_CHARS)}…` : value;
    return `string ${JSON.stringify(shown)}`;
  }
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return typeof value;
}

/** `[inputs -> text] must be string; ...`, the spec 002 rendering of a list of violations. */
export function describeViolations(violations: ValidationViolation[]): string {
  return violations
    .map(({ path, message }) => `[${path.split('/').filter(Boolean).join(' -> ')}] ${message}`)
    .join('; ');
}
