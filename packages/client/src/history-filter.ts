import type { ExecutionQuery } from './protocol.js';

/**
 * A history query as skillrun takes it, in a URL's query or a JSON body: statuses and tags
 * comma-separated, and each metadata value its own `metadata.<key>` field.
 */
export function historyFilterOf(query: ExecutionQuery): Record<string, string | number | undefined> {
  const { status, tag, metadata, ...rest } = query;
  const fields: Record<string, string | number | undefined> = {
    ...rest,
    status: Array.isArray(status) ? status.join(',') : status,
    tag: Array.isArray(tag) ? tag.join(',') : tag,
  };
  for (const [key, value] of Object.entries(metadata ?? {})) fields[`metadata.${key}`] = value;
  return fields;
}
