import { type Principal, SkillError, type SkillPause, type SkillPauseState } from '@skillrun/core';
import type { SkillPauses, SkillRegistry } from '@skillrun/core/data';
import type { Identity } from '../auth/identity';
import { assertMayPublish, assertOwns, type IdAction } from '../auth/namespace-ownership';

const PAUSING: IdAction = { verb: 'pause', gerund: 'Pausing', role: 'operator' };

/**
 * POST /skills/{id}/pause and /resume: an operator's hold on every version of a skill hosted here,
 * as BullMQ pauses a queue (SkillPauses). Who may: an admin, or the owner of the id's namespace, as
 * for publishing. Both are idempotent and answer the state the skill is in.
 */
export class SkillPauser {
  constructor(
    private readonly registry: SkillRegistry,
    private readonly pauses: SkillPauses,
  ) {}

  async pause(skillId: string, identity: Identity): Promise<SkillPauseState> {
    const principal = await this.assertMayPause(skillId, identity);
    return stateOf(skillId, await this.pauses.pause(skillId, principal.callerId));
  }

  async resume(skillId: string, identity: Identity): Promise<SkillPauseState> {
    await this.assertMayPause(skillId, identity);
    return stateOf(skillId, await this.pauses.resume(skillId));
  }

  /**
   * The caller, if it may pause the skill: 404 for an id with no version, and 409 for a skill
   * registered from elsewhere, whose executions share the remote queue with every other such skill
   * (a queue BullMQ pauses as a whole).
   */
  private async assertMayPause(skillId: string, identity: Identity): Promise<Principal> {
    const principal = assertMayPublish(skillId, identity, PAUSING);
    const versions = await this.registry.versions(skillId);
    if (versions.length === 0) throw new SkillError('SKILL_NOT_FOUND', `No skill "${skillId}" is known`);
    assertOwns(
      skillId,
      versions.map((version) => version.owner),
      principal,
      PAUSING.role,
    );
    if (versions.some((version) => version.source === 'registered')) {
      throw new SkillError(
        'SKILL_VERSION_CONFLICT',
        `"${skillId}" is registered from elsewhere and runs at its provider: only skills this service's workers host can be paused`,
        { suggestedAction: 'Deprecate its versions, or pause it at its provider' },
      );
    }
    return principal;
  }
}

function stateOf(skillId: string, pause: SkillPause | undefined): SkillPauseState {
  return pause ? { skill_id: skillId, paused: true, ...pause } : { skill_id: skillId, paused: false };
}
