import { isTruthy } from './is-truthy';
import { jsonEqual } from './json-equal';
import { readPath } from './read-path';
import type { TemplateFilter } from './template-expression';
import { textOf } from './text-of';

type Fail = (problem: string) => never;

/**
 * One filter applied to a value. A missing value (undefined or null) passes through every filter
 * but `default`, `not`, `eq` and `json`, so that a skipped step or an absent field can be defaulted.
 */
export function applyFilter(value: unknown, filter: TemplateFilter, fail: Fail): unknown {
  if (isMissing(value) && !HANDLES_MISSING.has(filter.name)) return value;
  switch (filter.name) {
    case 'map':
      // null where an item lacks the field, as JSON would have it.
      return arrayFor(value, filter.name, fail).map((item) => readPath(item, filter.field) ?? null);
    case 'join':
      return arrayFor(value, filter.name, fail).map(textOf).join(filter.separator);
    case 'first':
      return arrayFor(value, filter.name, fail).at(0);
    case 'last':
      return arrayFor(value, filter.name, fail).at(-1);
    case 'length':
      if (typeof value === 'string') return [...value].length;
      return Array.isArray(value)
        ? value.length
        : fail(`length needs a string or an array, got ${describeValue(value)}`);
    case 'json':
      return JSON.stringify(value);
    case 'default':
      return isMissing(value) || value === '' ? structuredClone(filter.value) : value;
    case 'not':
      return !isTruthy(value);
    case 'eq':
      return jsonEqual(value, filter.value);
  }
}

const HANDLES_MISSING: ReadonlySet<TemplateFilter['name']> = new Set(['default', 'not', 'eq', 'json']);

function isMissing(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

function arrayFor(value: unknown, filter: string, fail: Fail): unknown[] {
  return Array.isArray(value) ? value : fail(`${filter} needs an array, got ${describeValue(value)}`);
}

function describeValue(value: unknown): string {
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
