import { describe, expect, it } from 'vitest';
import { limitsFor, parseLimits } from '../../apps/gateway/src/limits/limits-config';
import { rateLimitHeaders } from '../../apps/gateway/src/limits/rate-limit-headers';

const limits = parseLimits(
  JSON.stringify({
    default: {
      rate: { requests: 100, per_seconds: 60 },
      concurrency: 10,
      skills: { heavy: { rate: { requests: 5, per_seconds: 1 }, concurrency: 2 } },
    },
    callers: {
      big: { concurrency: 50, skills: { heavy: { concurrency: 8 } } },
      slow: { rate: { requests: 10, per_seconds: 60 } },
    },
  }),
);

describe('LIMITS', () => {
  it('gives every caller the default, overall and per skill', () => {
    expect(limitsFor(limits, 'someone', 'heavy')).toEqual({
      overall: { rate: { requests: 100, per_seconds: 60 }, concurrency: 10 },
      skill: { rate: { requests: 5, per_seconds: 1 }, concurrency: 2 },
    });
    expect(limitsFor(limits, undefined, 'light').skill).toEqual({});
  });

  it("overrides the default field by field with a caller's own limits", () => {
    expect(limitsFor(limits, 'big', 'heavy')).toEqual({
      overall: { rate: { requests: 100, per_seconds: 60 }, concurrency: 50 },
      skill: { rate: { requests: 5, per_seconds: 1 }, concurrency: 8 },
    });
    expect(limitsFor(limits, 'slow', 'heavy').overall).toEqual({
      rate: { requests: 10, per_seconds: 60 },
      concurrency: 10,
    });
  });

  it('means no limits when unset, and refuses what is not a policy', () => {
    expect(limitsFor(parseLimits(undefined), 'anyone', 'heavy')).toEqual({ overall: {}, skill: {} });
    for (const bad of [
      '[]',
      '{"default":{"concurrency":0}}',
      '{"default":{"rate":{"requests":1}}}',
      '{"x":1}',
    ]) {
      expect(() => parseLimits(bad), bad).toThrow(/LIMITS/);
    }
  });

  it('renders the IETF RateLimit fields, concurrency quotas without a window', () => {
    expect(
      rateLimitHeaders([
        { policy: 'invocations', quota: 100, remaining: 99, windowSeconds: 60, resetSeconds: 59 },
        { policy: 'in-flight', quota: 10, remaining: 9 },
      ]),
    ).toEqual({
      'RateLimit-Policy': '"invocations";q=100;w=60, "in-flight";q=10;qu="concurrent-requests"',
      RateLimit: '"invocations";r=99;t=59, "in-flight";r=9',
    });
    expect(rateLimitHeaders([])).toEqual({});
  });
});
