import {
  PinRequest,
  type Principal,
  parseVersionRange,
  pickVersion,
  RolloutRequest,
  SchemaValidator,
  SkillError,
  type SkillRollout,
} from '@skillrun/core';
import {
  type RegistryVersion,
  rolloutView,
  type SkillRegistry,
  type SkillRollouts,
} from '@skillrun/core/data';

const rolloutRequest = new SchemaValidator(RolloutRequest, 'rollout');
const pinRequest = new SchemaValidator(PinRequest, 'pin');

/** The longest caller id a pin is made for: as an invocation's caller.id. */
const MAX_CALLER_LENGTH = 256;

/**
 * A skill's rollout (ours), for admins: POST ramps a published version to a share of the unpinned
 * callers, DELETE rolls it back in one call, and PUT/DELETE pins/{caller} pins a caller to a range.
 * Each change is checked whole before it is written, and answers the rollout as it is then.
 */
export class RolloutControl {
  constructor(
    private readonly registry: SkillRegistry,
    private readonly rollouts: SkillRollouts,
  ) {}

  async show(skillId: string): Promise<SkillRollout> {
    await this.versionsOf(skillId);
    return rolloutView(skillId, await this.rollouts.of(skillId));
  }

  async ramp(skillId: string, body: unknown, admin: Principal, now = Date.now()): Promise<SkillRollout> {
    const { version, percent } = rolloutRequest.parse(body);
    const versions = await this.versionsOf(skillId);
    if (!versions.some((each) => each.version === version)) {
      throw new SkillError('INVALID_INPUT', `"${skillId}" has no version ${version}`, {
        details: [{ path: '/version', message: `must be a published version: ${listed(versions)}` }],
      });
    }
    await this.rollouts.ramp(skillId, {
      version,
      percent,
      ramped_at: new Date(now).toISOString(),
      ramped_by: admin.callerId,
    });
    return this.show(skillId);
  }

  /**
   * The rollback, one call: the ramp's share goes to 0 and its version is held back from every
   * unpinned caller. Idempotent; a skill without a ramp answers as it is.
   */
  async rollback(skillId: string, admin: Principal): Promise<SkillRollout> {
    await this.versionsOf(skillId);
    await this.rollouts.rollback(skillId, admin.callerId);
    return this.show(skillId);
  }

  async pin(
    skillId: string,
    caller: string,
    body: unknown,
    admin: Principal,
    now = Date.now(),
  ): Promise<SkillRollout> {
    assertCaller(caller);
    const range = parseVersionRange(pinRequest.parse(body).version, '/version');
    const versions = await this.versionsOf(skillId);
    const candidates = versions.map((each) => ({ version: each.version, deprecated: false, migrations: [] }));
    if (pickVersion(candidates, range) === undefined) {
      throw new SkillError('INVALID_INPUT', `No version of "${skillId}" satisfies "${range}"`, {
        details: [{ path: '/version', message: `must match a published version: ${listed(versions)}` }],
      });
    }
    await this.rollouts.pin(skillId, {
      caller,
      version: range,
      pinned_at: new Date(now).toISOString(),
      pinned_by: admin.callerId,
    });
    return this.show(skillId);
  }

  /** Idempotent: a caller without a pin answers the rollout as it is. */
  async unpin(skillId: string, caller: string): Promise<SkillRollout> {
    assertCaller(caller);
    await this.versionsOf(skillId);
    await this.rollouts.unpin(skillId, caller);
    return this.show(skillId);
  }

  /** Every version of the skill, or 404 for an id with none. */
  private async versionsOf(skillId: string): Promise<RegistryVersion[]> {
    const versions = await this.registry.versions(skillId);
    if (versions.length === 0) throw new SkillError('SKILL_NOT_FOUND', `No skill "${skillId}" is known`);
    return versions;
  }
}

function assertCaller(caller: string): void {
  if (caller.length > MAX_CALLER_LENGTH) {
    throw new SkillError('INVALID_INPUT', 'The caller id is too long', {
      details: [{ path: '/caller', message: `must be at most ${MAX_CALLER_LENGTH} characters` }],
    });
  }
}

function listed(versions: RegistryVersion[]): string {
  return versions.map((each) => each.version).join(', ');
}
