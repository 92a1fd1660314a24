import { randomBytes } from 'node:crypto';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** A new W3C-style trace id: 32 lowercase hex digits. */
export function newTraceId(): string {
  return randomBytes(16).toString('hex');
}

/** The trace id of a W3C `traceparent` header, or undefined when the header is absent or malformed. */
export function traceIdFromTraceparent(header: string | undefined): string | undefined {
  const match = header ? TRACEPARENT.exec(header.trim().toLowerCase()) : null;
  if (!match) return undefined;
  const [, version, traceId, parentId] = match;
  const invalid = version === 'ff' || /^0+$/.test(traceId ?? '') || /^0+$/.test(parentId ?? '');
  return invalid ? undefined : traceId;
}
