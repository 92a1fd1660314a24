import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { SkillError } from '../errors/skill-error';
import type { ValidationViolation } from '../schemas/error-body';
import { createAjv } from './create-ajv';
import { describeViolations, toViolations } from './violations';

export type ValidationResult =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; violations: ValidationViolation[] };

/**
 * Compiles skills' input and output schemas once per distinct schema and keeps them: compiling per
 * request would leak memory (ajv caches every compiled schema). Keyed by a hash of the schema.
 */
export class SkillSchemas {
  private readonly ajv: Ajv2020 = createAjv({ useDefaults: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  /** The same schema object again (the usual case) skips even the hashing. */
  private readonly byIdentity = new WeakMap<object, ValidateFunction>();

  /** Throws a SkillError naming the problem when the schema itself is not valid JSON Schema. */
  compile(schema: object): ValidateFunction {
    const known = this.byIdentity.get(schema);
    if (known) return known;
    const key = createHash('sha256').update(JSON.stringify(schema)).digest('base64url');
    let validate = this.compiled.get(key);
    if (!validate) {
      try {
        validate = this.ajv.compile(withoutDraftMarker(schema));
      } catch (error) {
        throw new SkillError('INVALID_INPUT', `Invalid JSON Schema: ${(error as Error).message}`, {
          recoverable: false,
        });
      }
      this.compiled.set(key, validate);
    }
    this.byIdentity.set(schema, validate);
    return validate;
  }

  /** Validates (and fills defaults into a copy of) `data`; paths are prefixed with `basePath`. */
  validate(schema: object, data: unknown, basePath = ''): ValidationResult {
    const validate = this.compile(schema);
    const copy = structuredClone(data) as Record<string, unknown>;
    if (validate(copy)) return { ok: true, value: copy };
    return { ok: false, violations: toViolations(validate.errors, basePath) };
  }

  /** Like validate, but throws INVALID_INPUT (or `code`) with one detail per violation. */
  assert(
    schema: object,
    data: unknown,
    what: string,
    basePath = '',
    code = 'INVALID_INPUT',
  ): Record<string, unknown> {
    const result = this.validate(schema, data, basePath);
    if (result.ok) return result.value;
    throw new SkillError(code, `Invalid ${what}: ${describeViolations(result.violations)}`, {
      details: result.violations,
    });
  }
}

/** skill.json files written for draft-07 say so in `$schema`; their keywords are read as 2020-12. */
function withoutDraftMarker(schema: object): object {
  if (!('$schema' in schema)) return schema;
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  return rest;
}
