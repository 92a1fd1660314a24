import { ConfigError, type Principal, SkillError } from '@skillrun/core';
import { loadGatewayConfig } from '@skillrun/gateway';
import { describe, expect, it } from 'vitest';
import { assertRole } from '../../apps/gateway/src/auth/assert-role';
import { operatesAll, overseesAll, roleOf, seesPayloads } from '../../apps/gateway/src/auth/role-of';

const principal = (extra: Partial<Principal> = {}): Principal => ({
  callerId: 'c',
  scopes: ['skill:invoke'],
  method: 'api_key',
  ...extra,
});

function refusal(run: () => void): SkillError {
  try {
    run();
  } catch (error) {
    if (error instanceof SkillError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('roles', () => {
  it('takes the role a credential carries, else admin for the admin scope, else none (a caller)', () => {
    expect(roleOf(principal())).toBeUndefined();
    expect(roleOf(principal({ scopes: ['admin'] }))).toBe('admin');
    expect(roleOf(principal({ role: 'viewer' }))).toBe('viewer');
    expect(roleOf(principal({ scopes: ['admin'], role: 'operator' }))).toBe('operator');
    expect(roleOf(undefined)).toBeUndefined();
  });

  it('lets every role see everyone, operators and admins act on everyone, all but viewers see payloads', () => {
    const [caller, viewer, operator, admin] = [undefined, 'viewer', 'operator', 'admin'].map((role) =>
      principal(role ? { role: role as Principal['role'] } : {}),
    );
    expect([caller, viewer, operator, admin].map(overseesAll)).toEqual([false, true, true, true]);
    expect([caller, viewer, operator, admin].map(operatesAll)).toEqual([false, false, true, true]);
    expect([caller, viewer, operator, admin].map(seesPayloads)).toEqual([true, false, true, true]);
  });

  it('refuses with 403 naming the missing role, and lets callers through only where told', () => {
    const error = refusal(() => assertRole(principal({ role: 'operator' }), 'admin', 'Creating API keys'));
    expect(error.code).toBe('ACCESS_DENIED');
    expect(error.message).toBe('Creating API keys needs the admin role');
    expect(error.options.details).toEqual({ missing_role: 'admin', role: 'operator' });
    expect(refusal(() => assertRole(principal(), 'viewer', 'Reading')).options.details).toEqual({
      missing_role: 'viewer',
      role: null,
    });
    expect(() => assertRole(principal(), 'operator', 'Canceling', 'callers too')).not.toThrow();
    expect(() => assertRole(principal({ role: 'viewer' }), 'operator', 'Canceling', 'callers too')).toThrow(
      SkillError,
    );
    expect(() => assertRole(principal({ scopes: ['admin'] }), 'admin', 'Anything')).not.toThrow();
  });

  it('refuses an OAUTH_ROLE_CLAIM that another check reads, or that is not a claim name', () => {
    expect(loadGatewayConfig({}).OAUTH_ROLE_CLAIM).toBe('role');
    expect(loadGatewayConfig({ OAUTH_ROLE_CLAIM: 'https://acme.example/roles' }).OAUTH_ROLE_CLAIM).toBe(
      'https://acme.example/roles',
    );
    for (const claim of ['sub', 'scope', 'skills', 'has space']) {
      expect(() => loadGatewayConfig({ OAUTH_ROLE_CLAIM: claim })).toThrow(ConfigError);
    }
  });
});
