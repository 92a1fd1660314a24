import { redactSecrets } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

describe('redactSecrets: what a log line may show', () => {
  it('censors secret fields at the top and up to four objects down, arrays included', () => {
    const line = {
      api_key: 'srk_secret',
      req: { headers: { authorization: 'Bearer t', 'x-api-key': 'k', accept: 'json' } },
      calls: [{ caller: { credentials: { api_key: 'k' } } }],
    };
    expect(redactSecrets(line)).toEqual({
      api_key: '[redacted]',
      req: { headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', accept: 'json' } },
      calls: [{ caller: { credentials: '[redacted]' } }],
    });
  });

  it('never changes the object it was given, and hands back one without secrets as it is', () => {
    const line = { execution_id: 'e1', nested: { password: 'p' } };
    const clean = { execution_id: 'e1', nested: { status: 'completed' } };
    expect(redactSecrets(line)).not.toBe(line);
    expect(line.nested.password).toBe('p');
    expect(redactSecrets(clean)).toBe(clean);
  });

  it('leaves errors and values that are not objects alone', () => {
    const error = new Error('boom');
    expect(redactSecrets({ err: error }).err).toBe(error);
    expect(redactSecrets('text')).toBe('text');
    expect(redactSecrets(null)).toBeNull();
  });
});
