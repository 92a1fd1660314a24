import { capabilityTypeOf } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

describe('capabilityTypeOf', () => {
  it("publishes knowledge and task skills as spec 000's own capability types", () => {
    expect(capabilityTypeOf('knowledge', 'api')).toBe('knowledge');
    expect(capabilityTypeOf('task', 'plugin')).toBe('task');
  });

  it("publishes code, llm and composite skills as the gateway's default says", () => {
    for (const kind of ['code', 'llm', 'composite'] as const) {
      expect(capabilityTypeOf(kind, 'api')).toBe('api');
      expect(capabilityTypeOf(kind, 'plugin')).toBe('plugin');
    }
  });
});
