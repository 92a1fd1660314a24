import type { ErrorObject } from 'ajv';
import type { ValidationViolation } from '../schemas/error-body';

const MAX_VIOLATIONS = 50;

/** One violation per ajv error, each naming its path as a JSON Pointer under `basePath`. */
export function toViolations(errors: ErrorObject[] | null | undefined, basePath = ''): ValidationViolation[] {
  return (errors ?? []).slice(0, MAX_VIOLATIONS).map((error) => {
    const missing = error.keyword === 'required' ? `/${pointerToken(error.params.missingProperty)}` : '';
    const extra =
      error.keyword === 'additionalProperties' ? `/${pointerToken(error.params.additionalProperty)}` : '';
    const path = `${basePath}${error.instancePath}${missing}${extra}` || '/';
    return { path, message: messageOf(error) };
  });
}

/** A property name as a JSON Pointer reference token (RFC 6901): `~` is `~0`, `/` is `~1`. */
function pointerToken(name: unknown): string {
  return String(name).replaceAll('~', '~0').replaceAll('/', '~1');
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a declared property';
    case 'enum':
      return `must be one of ${JSON.stringify(error.params.allowedValues)}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** `[inputs -> text] must be string; ...`, the spec 002 rendering of a list of violations. */
export function describeViolations(violations: ValidationViolation[]): string {
  return violations
    .map(({ path, message }) => `[${path.split('/').filter(Boolean).join(' -> ')}] ${message}`)
    .join('; ');
}
