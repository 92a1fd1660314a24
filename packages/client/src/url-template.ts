/**
 * A descriptor's `status_url` / `result_url` for one execution: the template with `{execution_id}`
 * filled in, or (spec 001's table, `{status_url}/{execution_id}`) the id appended.
 */
export function executionUrl(template: string, executionId: string, base?: string): string {
  const id = encodeURIComponent(executionId);
  const url = template.includes('{execution_id}')
    ? template.replaceAll('{execution_id}', id)
    : `${template.replace(/\/+$/, '')}/${id}`;
  return new URL(url, base).toString();
}

/** `path` under `baseUrl`, with the query's defined values. */
export function urlWithQuery(
  baseUrl: string,
  path: string,
  query: Record<string, string | number | undefined> = {},
): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path}`);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url.toString();
}
