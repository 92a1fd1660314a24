import type { Execution, ExecutionFilter } from '@skillrun/core';

const METADATA_PREFIX = 'metadata.';

/**
 * Whether an execution has the tags and metadata values a history filter asks for (`tag` with
 * `tag_match`, and each `metadata.<key>`): read from its record, as the other filters are, since
 * the index names only ids.
 */
export function labelFilter(query: ExecutionFilter): (execution: Execution) => boolean {
  const wanted = query.tag === undefined ? [] : query.tag.split(',');
  const any = query.tag_match === 'any';
  const values = Object.entries(query).flatMap(([field, value]) =>
    field.startsWith(METADATA_PREFIX) && typeof value === 'string'
      ? [[field.slice(METADATA_PREFIX.length), value] as const]
      : [],
  );
  return (execution) => {
    const tags = new Set(execution.tags ?? []);
    const tagged =
      wanted.length === 0 ||
      (any ? wanted.some((tag) => tags.has(tag)) : wanted.every((tag) => tags.has(tag)));
    return tagged && values.every(([key, value]) => metadataValue(execution.metadata, key) === value);
  };
}

/** A top-level metadata value as a filter writes it: a string as it is, anything else as JSON. */
function metadataValue(metadata: Record<string, unknown> | undefined, key: string): string | undefined {
  if (metadata === undefined || !Object.hasOwn(metadata, key)) return undefined;
  const value = metadata[key];
  return typeof value === 'string' ? value : JSON.stringify(value);
}
