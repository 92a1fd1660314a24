const NAME = '[A-Za-z_][A-Za-z0-9_-]*';
const RESERVED: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** A name (path segment or filter) at a scanner's position. */
export const NAME_AT = new RegExp(NAME, 'y');

/** A whole step name. */
export const STEP_NAME = new RegExp(`^${NAME}$`);

/** Names that would reach an object's prototype. */
export function isReservedName(name: string): boolean {
  return RESERVED.has(name);
}
