import type { Static, TSchema } from '@sinclair/typebox';
import type { Options, ValidateFunction } from 'ajv';
import { SkillError } from '../errors/skill-error';
import { createAjv } from './create-ajv';
import { describeViolations, toViolations } from './violations';

/** A compiled protocol schema: parse unknown data into the typed shape, or throw INVALID_INPUT. */
export class SchemaValidator<T extends TSchema> {
  private readonly check: ValidateFunction;

  constructor(
    schema: T,
    private readonly label: string,
    options: Options = {},
  ) {
    this.check = createAjv({ useDefaults: true, strict: true, ...options }).compile(schema);
  }

  parse(data: unknown, basePath = ''): Static<T> {
    if (this.check(data)) return data as Static<T>;
    const violations = toViolations(this.check.errors, basePath);
    throw new SkillError('INVALID_INPUT', `Invalid ${this.label}: ${describeViolations(violations)}`, {
      details: violations,
    });
  }
}
