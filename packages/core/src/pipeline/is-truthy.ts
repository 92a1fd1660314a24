/** False for undefined, null, false, 0, '' and empty arrays (where JavaScript alone says true). */
export function isTruthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}
