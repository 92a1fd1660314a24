import { codeForViolations, type ValidationViolation } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const missing: ValidationViolation = {
  path: '/inputs/topic',
  message: 'is required',
  code: 'MISSING_REQUIRED_PARAM',
};
const tooHigh: ValidationViolation = {
  path: '/inputs/limit',
  message: 'must be <= 10',
  code: 'PARAM_OUT_OF_RANGE',
};
const tooLow: ValidationViolation = {
  path: '/inputs/page',
  message: 'must be >= 1',
  code: 'PARAM_OUT_OF_RANGE',
};
const wrongType: ValidationViolation = {
  path: '/inputs/limit',
  message: 'must be integer (got string "x")',
  code: 'INVALID_INPUT',
};

describe('codeForViolations', () => {
  it('answers MISSING_REQUIRED_PARAM when any parameter is missing, whatever else is wrong', () => {
    expect(codeForViolations([missing])).toBe('MISSING_REQUIRED_PARAM');
    expect(codeForViolations([tooHigh, wrongType, missing])).toBe('MISSING_REQUIRED_PARAM');
  });

  it('answers PARAM_OUT_OF_RANGE only when every violation is a bound', () => {
    expect(codeForViolations([tooHigh, tooLow])).toBe('PARAM_OUT_OF_RANGE');
    expect(codeForViolations([tooHigh, wrongType])).toBe('INVALID_INPUT');
  });

  it('answers INVALID_INPUT otherwise, including for violations without a code', () => {
    expect(codeForViolations([wrongType])).toBe('INVALID_INPUT');
    expect(codeForViolations([{ path: '/inputs', message: 'is invalid' }])).toBe('INVALID_INPUT');
    expect(codeForViolations([])).toBe('INVALID_INPUT');
  });
});
