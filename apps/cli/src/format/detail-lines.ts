/**
 * An error's `details`, one line each: validation details (`[{path, message}]`) as `path: message`,
 * an object's fields as `field: value`, anything else as JSON.
 */
export function detailLines(details: unknown): string[] {
  if (details === undefined || details === null) return [];
  if (Array.isArray(details)) {
    return details.map((detail) => {
      if (typeof detail === 'object' && detail !== null && 'message' in detail) {
        const { path, message } = detail as { path?: unknown; message?: unknown };
        return typeof path === 'string' && path !== '' ? `${path}: ${String(message)}` : String(message);
      }
      return JSON.stringify(detail);
    });
  }
  if (typeof details === 'object') {
    return Object.entries(details).map(
      ([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
    );
  }
  return [JSON.stringify(details)];
}
