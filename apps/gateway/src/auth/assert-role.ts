import { type Principal, type Role, SkillError } from '@skillrun/core';
import { reaches, roleOf } from './role-of';

/** Who else passes: `callers` lets a principal without a role through (it acts on its own executions). */
export type RoleCheck = 'roles only' | 'callers too';

/**
 * The one place a role is checked: 403 ACCESS_DENIED naming the missing role (in the message and
 * as `details.missing_role`) unless `principal` reaches `needed`. `act` says what was refused
 * ("Creating API keys"). Every refusal for want of a role passes here, so that it can be recorded.
 */
export function assertRole(
  principal: Principal,
  needed: Role,
  act: string,
  check: RoleCheck = 'roles only',
): void {
  const role = roleOf(principal);
  if (reaches(role, needed) || (role === undefined && check === 'callers too')) return;
  throw new SkillError('ACCESS_DENIED', `${act} needs the ${needed} role`, {
    details: { missing_role: needed, role: role ?? null },
  });
}
