import { ConfigError } from '@skillrun/core';
import { describe, expect, it } from 'vitest';
import { allowedOriginsOf } from '../../apps/gateway/src/agents/agent-config';

describe('MCP_ALLOWED_ORIGINS', () => {
  it('is the origins it lists, as browsers send them', () => {
    expect(allowedOriginsOf(undefined)).toEqual([]);
    expect(allowedOriginsOf(' https://App.example.com:443/ ,http://localhost:6274,')).toEqual([
      'https://app.example.com',
      'http://localhost:6274',
    ]);
  });

  it('refuses at start what is not an origin: a wildcard, a path, another scheme', () => {
    for (const setting of [
      '*',
      'https://app.example.com/mcp',
      'app.example.com',
      'file:///tmp',
      'https://a.example.com?x',
    ]) {
      expect(() => allowedOriginsOf(setting), setting).toThrow(ConfigError);
    }
  });
});
