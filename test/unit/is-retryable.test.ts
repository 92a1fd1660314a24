import { ErrorCatalog, type ErrorCode, isRetryable } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const body = (code: string, recoverable = true) => ({ code, message: 'm', recoverable });

describe('isRetryable', () => {
  it.each(['INVALID_INPUT', 'MISSING_REQUIRED_PARAM', 'INVALID_OUTPUT'])('never retries %s', (code) => {
    expect(isRetryable(body(code, true))).toBe(false);
    expect(isRetryable(body(code, false))).toBe(false);
  });

  it.each(['EXECUTION_TIMEOUT', 'TOOL_EXECUTION_FAILED'])('retries %s when recoverable', (code) => {
    expect(isRetryable(body(code, true))).toBe(true);
  });

  it('never retries any code, known or custom, marked recoverable: false', () => {
    for (const code of [...Object.keys(ErrorCatalog), 'MY_CUSTOM_CODE']) {
      expect(isRetryable(body(code, false)), code).toBe(false);
    }
  });

  it('retries an unknown custom code that is recoverable', () => {
    expect(isRetryable(body('UPSTREAM_HICCUP', true))).toBe(true);
  });

  it('never retries a 4xx code other than 429 (the request has to change, not the timing)', () => {
    const callerErrors = Object.entries(ErrorCatalog)
      .filter(([, entry]) => entry.http >= 400 && entry.http < 500 && entry.http !== 429)
      .map(([code]) => code as ErrorCode);
    expect(callerErrors.length).toBeGreaterThan(0);
    for (const code of callerErrors) expect(isRetryable(body(code, true)), code).toBe(false);
  });
});
