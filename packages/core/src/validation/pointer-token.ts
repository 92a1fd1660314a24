/** A property name as a JSON Pointer reference token (RFC 6901): `~` is `~0`, `/` is `~1`. */
export function pointerToken(name: unknown): string {
  return String(name).replaceAll('~', '~0').replaceAll('/', '~1');
}
