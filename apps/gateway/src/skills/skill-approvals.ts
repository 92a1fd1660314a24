import {
  assertApprovalPolicy,
  type SkillApprovalState,
  type SkillApprovalUpdate,
  SkillError,
} from '@skillrun/core';
import type { OperatorApproval, SkillRegistry } from '@skillrun/core/data';
import { type Identity, isAdmin, principalOf } from '../auth/identity';

/**
 * GET and PUT /skills/{id}/approval: an operator's approval policy for every version of a skill,
 * without a new version; it wins over each version's own (skill.json `approval`). Admins only: it
 * decides who may let executions of another caller's skill run. Invocations see a change within
 * SKILL_CACHE_MS (the registry read they share).
 */
export class SkillApprovals {
  constructor(private readonly registry: SkillRegistry) {}

  async get(skillId: string, identity: Identity): Promise<SkillApprovalState> {
    assertOperator(identity);
    const versions = await this.registry.versions(skillId);
    if (versions.length === 0) throw notFound(skillId);
    return stateOf(skillId, versions[0]?.operatorApproval);
  }

  async set(skillId: string, update: SkillApprovalUpdate, identity: Identity): Promise<SkillApprovalState> {
    const by = assertOperator(identity);
    if (update.approval) assertApprovalPolicy(update.approval, '/approval');
    const setting: OperatorApproval | null = update.approval
      ? { approval: update.approval, set_by: by, set_at: new Date().toISOString() }
      : null;
    if (!(await this.registry.setApproval(skillId, setting))) throw notFound(skillId);
    return stateOf(skillId, setting ?? undefined);
  }
}

function assertOperator(identity: Identity): string {
  const principal = principalOf(identity);
  if (!principal) throw new SkillError('AUTH_REQUIRED', "A skill's approval policy is for admins");
  if (!isAdmin(principal)) {
    throw new SkillError(
      'ACCESS_DENIED',
      "Setting or reading a skill's approval policy needs the admin scope",
    );
  }
  return principal.callerId;
}

function stateOf(skillId: string, setting: OperatorApproval | undefined): SkillApprovalState {
  if (!setting) return { skill_id: skillId, approval: null };
  return { skill_id: skillId, approval: setting.approval, set_by: setting.set_by, set_at: setting.set_at };
}

function notFound(skillId: string): SkillError {
  return new SkillError('SKILL_NOT_FOUND', `No skill "${skillId}" is known`);
}
