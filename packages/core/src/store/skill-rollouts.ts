import type { Redis } from 'ioredis';
import type { SkillRamp, SkillRollout, VersionPin } from '../schemas/skill-rollout';
import type { RedisKeys } from './keys/redis-keys';

const RAMP = 'ramp';
const PIN = 'pin:';

/** A skill's rollout as the resolver reads it: its ramp, and its pins by caller id. */
export interface RolloutState {
  ramp: SkillRamp | undefined;
  pins: Map<string, VersionPin>;
}

/** No ramp and no pin: every skill without a rollout. */
export const NO_ROLLOUT: RolloutState = Object.freeze({ ramp: undefined, pins: new Map() });

/**
 * Each skill's rollout in Redis (one HASH per skill, RegistryKeys.rollout): the version ramped to a
 * share of its callers, and the callers pinned to a range. Each change writes one field in one
 * command, so a read sees a rollout before or after it, never half of one.
 */
export class SkillRollouts {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /** The skill's rollout; NO_ROLLOUT when it has none (one HGETALL). */
  async of(skillId: string): Promise<RolloutState> {
    const fields = await this.redis.hgetall(this.keys.registry.rollout(skillId));
    let ramp: SkillRamp | undefined;
    const pins = new Map<string, VersionPin>();
    for (const [field, json] of Object.entries(fields)) {
      if (field === RAMP) ramp = JSON.parse(json) as SkillRamp;
      else if (field.startsWith(PIN)) pins.set(field.slice(PIN.length), JSON.parse(json) as VersionPin);
    }
    return ramp === undefined && pins.size === 0 ? NO_ROLLOUT : { ramp, pins };
  }

  /** Sets (or replaces) the skill's ramp. */
  async ramp(skillId: string, ramp: SkillRamp): Promise<void> {
    await this.redis.hset(this.keys.registry.rollout(skillId), RAMP, JSON.stringify(ramp));
  }

  /**
   * The rollback: the ramp's share goes to 0, so every unpinned caller runs the default version
   * again, and the ramped version stays held back from them (without a ramp, the latest version
   * would reach them all). Answers false when the skill has no ramp. Two admins changing one
   * skill's ramp at once: the last write wins.
   */
  async rollback(skillId: string, by: string, now = Date.now()): Promise<boolean> {
    const json = await this.redis.hget(this.keys.registry.rollout(skillId), RAMP);
    if (json === null) return false;
    const ramp = JSON.parse(json) as SkillRamp;
    await this.ramp(skillId, { ...ramp, percent: 0, ramped_at: new Date(now).toISOString(), ramped_by: by });
    return true;
  }

  async pin(skillId: string, pin: VersionPin): Promise<void> {
    await this.redis.hset(this.keys.registry.rollout(skillId), `${PIN}${pin.caller}`, JSON.stringify(pin));
  }

  async unpin(skillId: string, caller: string): Promise<boolean> {
    return (await this.redis.hdel(this.keys.registry.rollout(skillId), `${PIN}${caller}`)) === 1;
  }
}

/** A rollout as the API shows it: the ramp, and the pins in the order of their callers' ids. */
export function rolloutView(skillId: string, { ramp, pins }: RolloutState): SkillRollout {
  return {
    skill_id: skillId,
    ramp: ramp ?? null,
    pins: [...pins.values()].sort((a, b) => (a.caller < b.caller ? -1 : a.caller > b.caller ? 1 : 0)),
  };
}
