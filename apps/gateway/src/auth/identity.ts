import type { Principal } from '@skillrun/core';
import { roleOf } from './role-of';

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

/** The admin role, or (without a role) the admin scope. */
export function isAdmin(principal: Principal | undefined): boolean {
  return roleOf(principal) === 'admin';
}
