import type { FuncKeywordDefinition, SchemaValidateFunction } from 'ajv';
import { MAX_JSON_BYTES_KEYWORD } from '../schemas/json-schema';

const check: SchemaValidateFunction = (limit: number, data: unknown) => {
  const bytes = Buffer.byteLength(JSON.stringify(data) ?? '', 'utf8');
  if (bytes <= limit) return true;
  check.errors = [
    {
      keyword: MAX_JSON_BYTES_KEYWORD,
      message: `must be at most ${limit} bytes as JSON (got ${bytes})`,
      params: { limit },
    },
  ];
  return false;
};

/** The ajv keyword of MAX_JSON_BYTES_KEYWORD. */
export const maxJsonBytes: FuncKeywordDefinition = {
  keyword: MAX_JSON_BYTES_KEYWORD,
  schemaType: 'number',
  errors: true,
  validate: check,
};
