import type { Principal } from '@skillrun/core';

/**
 * Who a request comes from: nobody (no credentials), a principal (valid credentials), or someone
 * whose credentials were presented and refused (always 401, whatever the skill asks for).
 */
export type Identity =
  | { kind: 'anonymous' }
  | { kind: 'principal'; principal: Principal }
  | { kind: 'invalid'; method: Principal['method'] };

export const ANONYMOUS: Identity = { kind: 'anonymous' };

export function principalOf(identity: Identity): Principal | undefined {
  return identity.kind === 'principal' ? identity.principal : undefined;
}

export function isAdmin(principal: Principal | undefined): boolean {
  return principal?.scopes.includes('admin') === true;
}
