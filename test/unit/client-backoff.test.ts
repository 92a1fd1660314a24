import { describe, expect, it } from 'vitest';
import { backoffDelay, retryAfterMs, retryDelayMs, sleep } from '../../packages/client/src/backoff';
import { executionUrl } from '../../packages/client/src/url-template';

describe("the client's retry arithmetic (spec 001 section 6.6)", () => {
  const policy = { maxAttempts: 5, initialDelayMs: 100, maxDelayMs: 1000 };

  it('backs off as initial delay × 2^n, capped, from a hint when one is given', () => {
    expect([0, 1, 2, 3, 4].map((retry) => backoffDelay(policy, retry))).toEqual([100, 200, 400, 800, 1000]);
    expect(backoffDelay(policy, 1, 300)).toBe(600);
  });

  it('reads Retry-After as seconds or as an HTTP date, and nothing else', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });

  it('reads Retry-After-Ms before Retry-After when it is a number of ms', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const delay = (headers: Record<string, string>) => retryDelayMs(new Headers(headers), now);
    expect(delay({ 'retry-after-ms': '250', 'retry-after': '1' })).toBe(250);
    expect(delay({ 'retry-after-ms': '0' })).toBe(0);
    expect(delay({ 'retry-after-ms': '12.5' })).toBe(12.5);
    for (const bad of ['', '-5', 'soon', '1e3', '0x10'])
      expect(delay({ 'retry-after-ms': bad, 'retry-after': '2' })).toBe(2000);
    expect(delay({})).toBeUndefined();
  });

  it('ends a backoff sleep as soon as the signal aborts, with its reason', async () => {
    const controller = new AbortController();
    const sleeping = sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
  });

  it('fills {execution_id} in a template, or appends the id to a base URL', () => {
    expect(executionUrl('https://p.example/s/x/status/{execution_id}?v=1', 'a b')).toBe(
      'https://p.example/s/x/status/a%20b?v=1',
    );
    expect(executionUrl('https://p.example/status/', 'e1')).toBe('https://p.example/status/e1');
    expect(executionUrl('/status/{execution_id}', 'e1', 'http://h:1/skills/x/invoke')).toBe(
      'http://h:1/status/e1',
    );
  });
});
