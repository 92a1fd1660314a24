import type { ErrorObject } from 'ajv';
import type { ValidationViolation } from '../schemas/error-body';

const MAX_VIOLATIONS = 50;

/** One violation per ajv error, each naming its path as a JSON Pointer under `basePath`. */
export function toViolations(errors: ErrorObject[] | null | undefined, basePath = ''): ValidationViolation[] {
  return (errors ?? []).slice(0, MAX_VIOLATIONS).map((error) => {
    const missing = error.keyword === 'required' ? `/${String(error.params.missingProperty)}` : '';
    const extra =
      error.keyword === 'additionalProperties' ? `/${String(error.params.additionalProperty)}` : '';
    const path = `${basePath}${error.instancePath}${missing}${extra}` || '/';
    return { path, message: messageOf(error) };
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
