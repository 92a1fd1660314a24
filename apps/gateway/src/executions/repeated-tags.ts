/**
 * A query whose `tag` repeats (`?tag=a&tag=b`, which the query parser gives as a list) as the one
 * comma-separated `tag` the history's filter takes (`?tag=a,b`).
 */
export function withRepeatedTags(query: Record<string, unknown>): Record<string, unknown> {
  const { tag } = query;
  return Array.isArray(tag) ? { ...query, tag: tag.join(',') } : query;
}
