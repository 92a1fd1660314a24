import { type Principal, ROLES, type Role } from '@skillrun/core';

/**
 * The role a principal acts in: the one its credential carries, or else admin for the admin scope
 * (as before roles existed); undefined for a caller, who acts on its own executions as its scopes say.
 */
export function roleOf(principal: Principal | undefined): Role | undefined {
  if (principal?.role !== undefined) return principal.role;
  return principal?.scopes.includes('admin') === true ? 'admin' : undefined;
}

/** Whether `role` may do what `needed` may; a caller (no role) reaches none. */
export function reaches(role: Role | undefined, needed: Role): boolean {
  return role !== undefined && ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** Every role sees every caller's executions (a viewer without their inputs and outputs). */
export function overseesAll(principal: Principal | undefined): boolean {
  return roleOf(principal) !== undefined;
}

/** An operator or an admin acts on every caller's executions and schedules. */
export function operatesAll(principal: Principal | undefined): boolean {
  const role = roleOf(principal);
  return role === 'operator' || role === 'admin';
}

/** Whether inputs and outputs are shown to this principal: to all but a viewer. */
export function seesPayloads(principal: Principal | undefined): boolean {
  return roleOf(principal) !== 'viewer';
}
