import { ExecutionReadQuery, LONGEST_WAIT_SECONDS, SchemaValidator } from '@skillrun/core';

const readQuery = new SchemaValidator(ExecutionReadQuery, 'query', { coerceTypes: true });

/**
 * The seconds a GET status or result asks to wait: `?wait=N`, which is validated like any query
 * (a bad value is a 400), else the `Prefer: wait=N` header. Undefined when neither asks.
 */
export function requestedWait(
  query: Record<string, unknown>,
  prefer: string | undefined,
): number | undefined {
  const { wait } = readQuery.parse({ ...query });
  return wait ?? preferredWait(prefer);
}

/**
 * The `wait` preference of a Prefer header (RFC 7240): delta-seconds, case-insensitive name,
 * optionally quoted, parameters after `;` ignored. Only its first instance counts, and one that is
 * not understood (not a whole number of seconds, or over LONGEST_WAIT_SECONDS) is ignored, as the
 * RFC asks of preferences: the request is then answered at once.
 */
export function preferredWait(prefer: string | undefined): number | undefined {
  for (const preference of prefer?.split(',') ?? []) {
    const [head = ''] = preference.split(';');
    const equals = head.indexOf('=');
    const name = (equals < 0 ? head : head.slice(0, equals)).trim().toLowerCase();
    if (name !== 'wait') continue;
    const value =
      equals < 0
        ? ''
        : head
            .slice(equals + 1)
            .trim()
            .replace(/^"(.*)"$/, '$1');
    return /^\d+$/.test(value) && Number(value) <= LONGEST_WAIT_SECONDS ? Number(value) : undefined;
  }
  return undefined;
}
