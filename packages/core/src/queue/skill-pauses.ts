import type { Redis } from 'ioredis';
import type { SkillPause } from '../schemas/skill-pause';
import type { RedisKeys } from '../store/keys/redis-keys';
import type { SkillRegistry, VersionRef } from '../store/skill-registry';
import type { QueueRegistry } from './queue-registry';

export interface SkillPausesDeps {
  redis: Redis;
  keys: RedisKeys;
  queues: QueueRegistry;
  registry: SkillRegistry;
}

/**
 * The skills an operator paused (POST /skills/{id}/pause): their executions are accepted and wait in
 * their queues, none starts, and those running finish. What holds the jobs is BullMQ's own pause of
 * each queue of every version (both priorities): a worker's fetch finds nothing, and no marker wakes
 * it until the queue is resumed. What is true is a flag per skill in Redis, which a version
 * advertised for the first time while its skill is paused follows too.
 *
 * Whoever changes the flag, and a worker holding a version it advertises, brings the queues to the
 * flag and reads the flag again after, until it reads what it applied. So whatever the order of a
 * pause, a resume and a first advertisement running at once, the last queue operation is by one who
 * then read the final flag, and every queue ends as the flag says; no lock is needed.
 */
export class SkillPauses {
  constructor(private readonly deps: SkillPausesDeps) {}

  /** The skill's pause, or undefined when it is not paused. */
  async of(skillId: string): Promise<SkillPause | undefined> {
    const value = await this.deps.redis.hget(this.deps.keys.registry.pausedSkills(), skillId);
    return value === null ? undefined : (JSON.parse(value) as SkillPause);
  }

  /** Every paused skill, by id. */
  async all(): Promise<Map<string, SkillPause>> {
    const fields = await this.deps.redis.hgetall(this.deps.keys.registry.pausedSkills());
    return new Map(Object.entries(fields).map(([id, value]) => [id, JSON.parse(value) as SkillPause]));
  }

  /**
   * Pauses every version of a hosted skill, those advertised later included. A paused skill keeps
   * the pause it has (when and by whom), so pausing again changes nothing. Answers the pause once the
   * queues hold, or undefined if a resume came meanwhile.
   */
  async pause(skillId: string, by: string, now = Date.now()): Promise<SkillPause | undefined> {
    const pause: SkillPause = { paused_at: new Date(now).toISOString(), paused_by: by };
    await this.deps.redis.hsetnx(this.deps.keys.registry.pausedSkills(), skillId, JSON.stringify(pause));
    // The versions are read after the flag is set: one advertised before is among them, one
    // advertised after finds the flag (holdAdvertised).
    return this.settle(skillId, await this.hostedVersions(skillId));
  }

  /** Lets every version of the skill run again; BullMQ's resume wakes the workers waiting on its queues. */
  async resume(skillId: string): Promise<SkillPause | undefined> {
    await this.deps.redis.hdel(this.deps.keys.registry.pausedSkills(), skillId);
    return this.settle(skillId, await this.hostedVersions(skillId));
  }

  /**
   * Holds the queues of the versions a worker has just advertised, for the skills that are paused:
   * a version published while its skill is paused starts paused. Called after the advertisement, so
   * that a pause is either seen here or finds the version in the registry.
   */
  async holdAdvertised(versions: VersionRef[]): Promise<void> {
    const skills = [...new Set(versions.map((version) => version.skill))];
    if (skills.length === 0) return;
    const flags = await this.deps.redis.hmget(this.deps.keys.registry.pausedSkills(), ...skills);
    const paused = skills.filter((_, index) => flags[index] != null);
    await Promise.all(
      paused.map((skill) =>
        this.settle(
          skill,
          versions.filter((version) => version.skill === skill).map((version) => version.version),
        ),
      ),
    );
  }

  /** Brings the versions' queues to the flag until the flag reads as applied (see the class). */
  private async settle(skillId: string, versions: string[]): Promise<SkillPause | undefined> {
    const queues = versions.flatMap((version) => this.deps.queues.allOf(skillId, version));
    let applied = await this.of(skillId);
    for (;;) {
      await Promise.all(queues.map((queue) => (applied ? queue.pause() : queue.resume())));
      const now = await this.of(skillId);
      if ((now === undefined) === (applied === undefined)) return now;
      applied = now;
    }
  }

  /** Every version of the skill hosted here, available now or not (their queues may hold jobs). */
  private async hostedVersions(skillId: string): Promise<string[]> {
    const versions = await this.deps.registry.versions(skillId);
    return versions.filter((version) => version.source === 'hosted').map((version) => version.version);
  }
}
