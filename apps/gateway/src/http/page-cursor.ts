import { SkillError } from '@skillrun/core';

/** A listing's `next_cursor`: where the next page starts, as opaque base64url JSON. */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/**
 * The position a cursor holds, as `read` takes it from the decoded JSON (undefined when it is not
 * one); 400 for anything that is not a cursor this service gave out.
 */
export function decodeCursor<T>(
  cursor: string,
  read: (decoded: Record<string, unknown>) => T | undefined,
): T {
  let position: T | undefined;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof decoded === 'object' && decoded !== null) position = read(decoded as Record<string, unknown>);
  } catch {}
  if (position !== undefined) return position;
  throw new SkillError('INVALID_INPUT', 'The cursor is not one this service gave out', {
    details: [{ path: '/cursor', message: 'must be the next_cursor of a previous page' }],
  });
}
