import { randomUUID } from 'node:crypto';
import { isSpanContextValid, trace } from '@opentelemetry/api';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/**
 * A new W3C-style trace id: 32 lowercase hex digits, a random UUID's without its dashes (122 random
 * bits, all of the last 7 bytes among them, as trace context level 2 asks). randomUUID draws from
 * an entropy pool Node refills once per 128 ids; randomBytes(16) would go to OpenSSL every time.
 */
export function newTraceId(): string {
  return randomUUID().replaceAll('-', '');
}

/** The trace id of a W3C `traceparent` header, or undefined when the header is absent or malformed. */
export function traceIdFromTraceparent(header: string | undefined): string | undefined {
  const match = header ? TRACEPARENT.exec(header.trim().toLowerCase()) : null;
  if (!match) return undefined;
  const [, version, traceId, parentId] = match;
  const invalid = version === 'ff' || /^0+$/.test(traceId ?? '') || /^0+$/.test(parentId ?? '');
  return invalid ? undefined : traceId;
}

/**
 * The trace id of the span this code runs in (the HTTP request's, when the process traces): the id
 * the spans of an execution are exported under. Undefined without tracing.
 */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  const spanContext = span?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}
