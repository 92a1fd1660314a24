import { isRecord } from './is-record';
import type { PathSegment } from './template-expression';

/**
 * The value at `path`, read through own properties of objects and indices of arrays only, so
 * that no path reaches a prototype; undefined where the path leads nowhere.
 */
export function readPath(value: unknown, path: readonly PathSegment[]): unknown {
  return path.reduce<unknown>(readSegment, value);
}

function readSegment(value: unknown, segment: PathSegment): unknown {
  if (Array.isArray(value)) {
    return typeof segment === 'number' && Object.hasOwn(value, segment) ? value[segment] : undefined;
  }
  if (!isRecord(value)) return undefined;
  const key = String(segment);
  return Object.hasOwn(value, key) ? value[key] : undefined;
}
