import { SkillError } from '../errors/skill-error';
import type { NewApiKey } from '../schemas/api-key';

/**
 * A key's role decides over its admin scope (a viewer or operator key with the admin scope would
 * look like more than it is), so the two are refused together: INVALID_INPUT naming /role.
 */
export function assertRoleFitsScopes(key: NewApiKey): void {
  if (key.role === undefined || key.role === 'admin' || !key.scopes.includes('admin')) return;
  throw new SkillError('INVALID_INPUT', `A key with the role "${key.role}" cannot have the admin scope`, {
    details: [{ path: '/role', message: 'conflicts with the admin scope: drop one of them' }],
  });
}
