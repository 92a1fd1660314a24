import { newTraceId, traceIdFromTraceparent } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const VALID = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

describe('traceIdFromTraceparent', () => {
  it('returns the trace id of a valid W3C traceparent header', () => {
    expect(traceIdFromTraceparent(VALID)).toBe(TRACE_ID);
    expect(traceIdFromTraceparent(`00-${TRACE_ID}-00f067aa0ba902b7-00`)).toBe(TRACE_ID);
  });

  it('lower-cases the trace id and tolerates surrounding whitespace', () => {
    expect(traceIdFromTraceparent(VALID.toUpperCase())).toBe(TRACE_ID);
    expect(traceIdFromTraceparent(`  ${VALID}\t`)).toBe(TRACE_ID);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['a bare trace id', TRACE_ID],
    ['a trace id one digit short', `00-${TRACE_ID.slice(1)}-00f067aa0ba902b7-01`],
    ['a trace id one digit long', `00-${TRACE_ID}0-00f067aa0ba902b7-01`],
    ['a non-hex trace id', `00-${TRACE_ID.slice(0, -1)}g-00f067aa0ba902b7-01`],
    ['a short parent id', `00-${TRACE_ID}-00f067aa0ba902b-01`],
    ['no flags', `00-${TRACE_ID}-00f067aa0ba902b7`],
    ['a three-digit version', `000-${TRACE_ID}-00f067aa0ba902b7-01`],
    ['underscores for dashes', `00_${TRACE_ID}_00f067aa0ba902b7_01`],
    ['trailing garbage', `${VALID}-zz`],
    ['the all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
  ])('rejects %s', (_label, header) => {
    expect(traceIdFromTraceparent(header)).toBeUndefined();
  });
});

describe('newTraceId', () => {
  it('is 32 lowercase hex digits', () => {
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
  });

  it('is different on each call', () => {
    const ids = new Set(Array.from({ length: 1000 }, newTraceId));
    expect(ids.size).toBe(1000);
  });

  it('is accepted back as the trace id of a traceparent', () => {
    const id = newTraceId();
    expect(traceIdFromTraceparent(`00-${id}-00f067aa0ba902b7-01`)).toBe(id);
  });
});
