import type { Static, TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { SkillError } from '../errors/skill-error';
import { createAjv } from './create-ajv';
import { describeViolations, toViolations } from './violations';

/** What a protocol schema may ask of its Ajv: a query string's values coerced to the types. */
export interface ValidatorOptions {
  coerceTypes?: boolean;
}

/**
 * One Ajv per kind (coercing or not), shared by every protocol schema. Each Ajv compiles draft
 * 2020-12's meta-schema to check the first schema it is given: with one per validator, a gateway's
 * ~40 made it allocate ~230 MB and take ~0.4 s at start.
 */
const shared = new Map<boolean, Ajv2020>();

function ajvOf({ coerceTypes = false }: ValidatorOptions): Ajv2020 {
  let ajv = shared.get(coerceTypes);
  if (!ajv) {
    ajv = createAjv({ useDefaults: true, strict: true, coerceTypes });
    shared.set(coerceTypes, ajv);
  }
  return ajv;
}

/** A compiled protocol schema: parse unknown data into the typed shape, or throw INVALID_INPUT. */
export class SchemaValidator<T extends TSchema> {
  private readonly check: ValidateFunction;

  constructor(
    schema: T,
    private readonly label: string,
    options: ValidatorOptions = {},
  ) {
    this.check = ajvOf(options).compile(schema);
  }

  parse(data: unknown, basePath = ''): Static<T> {
    if (this.check(data)) return data as Static<T>;
    const violations = toViolations(this.check.errors, basePath);
    throw new SkillError('INVALID_INPUT', `Invalid ${this.label}: ${describeViolations(violations)}`, {
      details: violations,
    });
  }
}
