import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { SkillError } from '../errors/skill-error';
import type { ValidationViolation } from '../schemas/error-body';
import { coerceInputs } from './coerce-inputs';
import { createAjv } from './create-ajv';
import { codeForViolations } from './violation-code';
import { describeViolations, toViolations } from './violations';

export type ValidationResult =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; violations: ValidationViolation[] };

export interface SkillSchemasOptions {
  /** Distinct compiled schemas kept; the least recently used is dropped beyond this. Default 1000. */
  maxCachedSchemas?: number;
}

export interface AssertInputsOptions {
  /** Apply spec 002's friendly coercion (numeric strings, boolean words, single values) first. */
  coerce: boolean;
  basePath?: string;
  /** What the data is, for the message: `Invalid inputs: ...`. */
  what?: string;
}

interface Compiled {
  validate: ValidateFunction;
  /**
   * Whether validating fills defaults into the data (the schema has a `default` somewhere): only
   * then is the data copied first, so that the caller's object is left as it was.
   */
  fillsDefaults: boolean;
  /** The object ajv compiled, which is its own cache key. */
  compiledSchema: object;
}

/**
 * Compiles skills' input and output schemas once per distinct schema and keeps a bounded number
 * of them: compiling per request would leak memory, since ajv keeps every schema it compiled until
 * told to remove it. Keyed by a hash of the schema.
 */
export class SkillSchemas {
  /** Not registered by `$id`: two skills (or two versions of one) may share one. */
  private readonly ajv: Ajv2020 = createAjv({ useDefaults: true, addUsedSchema: false });
  private readonly maxCachedSchemas: number;
  /** In least recently used order: a hit moves its entry to the end. */
  private readonly compiled = new Map<string, Compiled>();
  /** The same schema object again (the usual case) skips even the hashing. */
  private readonly byIdentity = new WeakMap<object, { key: string; compiled: Compiled }>();

  constructor(options: SkillSchemasOptions = {}) {
    this.maxCachedSchemas = options.maxCachedSchemas ?? 1000;
  }

  /** How many distinct schemas are compiled and kept. */
  get size(): number {
    return this.compiled.size;
  }

  /** Throws a SkillError naming the problem when the schema itself is not valid JSON Schema. */
  compile(schema: object): ValidateFunction {
    return this.entryFor(schema).validate;
  }

  private entryFor(schema: object): Compiled {
    const known = this.byIdentity.get(schema);
    if (known) {
      this.touch(known.key);
      return known.compiled;
    }
    const text = JSON.stringify(schema);
    const key = createHash('sha256').update(text).digest('base64url');
    const compiled = this.touch(key) ?? this.add(key, schema, text.includes('"default"'));
    this.byIdentity.set(schema, { key, compiled });
    return compiled;
  }

  /** Validates (and fills defaults into a copy of) `data`; paths are prefixed with `basePath`. */
  validate(schema: object, data: unknown, basePath = ''): ValidationResult {
    return this.check(schema, data, basePath);
  }

  /**
   * Validates a skill's inputs, coerced when asked, and returns them with defaults filled in;
   * otherwise throws MISSING_REQUIRED_PARAM, PARAM_OUT_OF_RANGE or INVALID_INPUT (spec 002) with
   * one detail per violation. Inputs that are valid as they are are not coerced: coercion only
   * changes a value whose type the schema does not allow, so it would leave them as they are (and
   * a worker checks again inputs the gateway coerced already).
   */
  assertInputs(schema: object, data: unknown, options: AssertInputsOptions): Record<string, unknown> {
    const { coerce, basePath = '', what = 'inputs' } = options;
    let result = this.check(schema, data, basePath);
    if (!result.ok && coerce) result = this.check(schema, coerceInputs(schema, data), basePath);
    if (result.ok) return result.value;
    const { violations } = result;
    throw new SkillError(
      codeForViolations(violations),
      `Invalid ${what}: ${describeViolations(violations)}`,
      {
        details: violations,
      },
    );
  }

  /**
   * Validates `data`, or a copy of it when the schema fills defaults in (ajv fills them into what it
   * validates): the caller's object is never changed. Copying every time was ~3% of a gateway's
   * CPU per invocation, for schemas that mostly have no default.
   */
  private check(schema: object, data: unknown, basePath: string): ValidationResult {
    const { validate, fillsDefaults } = this.entryFor(schema);
    const value = fillsDefaults ? structuredClone(data) : data;
    if (validate(value)) return { ok: true, value: value as Record<string, unknown> };
    return { ok: false, violations: toViolations(validate.errors, basePath) };
  }

  private touch(key: string): Compiled | undefined {
    const entry = this.compiled.get(key);
    if (entry) {
      this.compiled.delete(key);
      this.compiled.set(key, entry);
    }
    return entry;
  }

  private add(key: string, schema: object, fillsDefaults: boolean): Compiled {
    const compiledSchema = withoutDraftMarker(schema);
    let validate: ValidateFunction;
    try {
      validate = this.ajv.compile(compiledSchema);
    } catch (error) {
      // ajv caches a schema before compiling it, and keeps it when compiling fails.
      this.ajv.removeSchema(compiledSchema);
      throw new SkillError('INVALID_INPUT', `Invalid JSON Schema: ${(error as Error).message}`, {
        recoverable: false,
      });
    }
    const compiled = { validate, compiledSchema, fillsDefaults };
    this.compiled.set(key, compiled);
    for (const [oldest, entry] of this.compiled) {
      if (this.compiled.size <= this.maxCachedSchemas) break;
      this.compiled.delete(oldest);
      this.ajv.removeSchema(entry.compiledSchema);
    }
    return compiled;
  }
}

/** skill.json files written for draft-07 say so in `$schema`; their keywords are read as 2020-12. */
function withoutDraftMarker(schema: object): object {
  if (!('$schema' in schema)) return schema;
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  return rest;
}
