import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { linearRegExp } from './linear-reg-exp';
import { maxJsonBytes } from './max-json-bytes';

// ajv-formats is CommonJS; under ESM its default export may arrive wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule;

/**
 * An Ajv for JSON Schema draft 2020-12 with format checking, as spec 002 requires. Patterns run on
 * a linear-time engine (a skill's schema is not trusted to be free of catastrophic backtracking),
 * errors carry the offending data so that messages can say what was sent, and `x-max-json-bytes`
 * bounds a value's size as JSON.
 */
export function createAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    verbose: true,
    ...options,
    code: { regExp: linearRegExp, ...options.code },
  });
  addFormats(ajv);
  ajv.addKeyword(maxJsonBytes);
  return ajv;
}
