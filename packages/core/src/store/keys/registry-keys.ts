/** The registry's keys: the skills published, their hosts, pauses and rollouts, the workers alive. */
export class RegistryKeys {
  constructor(private readonly prefix: string) {}

  /** ZSET (all scores 0) of every skill id in the registry, read in lexical order for pagination. */
  skillIds(): string {
    return `${this.prefix}:registry:ids`;
  }

  /** HASH version → JSON RegistryEntry: every version of a skill ever published. */
  skillVersions(skillId: string): string {
    return `${this.prefix}:registry:skill:${skillId}`;
  }

  /** HASH version → JSON Deprecation. */
  deprecations(skillId: string): string {
    return `${this.prefix}:registry:deprecated:${skillId}`;
  }

  /**
   * HASH `id@version` → id of the worker that last marked it: the hosted versions of scale-to-zero
   * pools, kept invocable while no worker holds a lease on them.
   */
  dormantVersions(): string {
    return `${this.prefix}:registry:dormant`;
  }

  /**
   * HASH skill id → JSON of an operator's approval policy (PUT /skills/{id}/approval), which wins
   * over each version's own: read with the skill's versions (SkillRegistry.versionsOf).
   */
  approvals(): string {
    return `${this.prefix}:registry:approvals`;
  }

  /** HASH skill id → JSON SkillPause: the skills an operator paused (their queues are held). */
  pausedSkills(): string {
    return `${this.prefix}:registry:paused`;
  }

  /**
   * HASH of a skill's rollout: `ramp` → JSON SkillRamp, and `pin:<caller id>` → JSON VersionPin for
   * each pinned caller. Absent for a skill without one.
   */
  rollout(skillId: string): string {
    return `${this.prefix}:registry:rollout:${skillId}`;
  }

  /** ZSET worker id → lease expiry (ms since epoch) of the workers hosting one version of a skill. */
  skillHosts(skillId: string, version: string): string {
    return `${this.prefix}:skill-hosts:${skillId}@${version}`;
  }

  /** ZSET worker id → lease expiry of every worker process. */
  workers(): string {
    return `${this.prefix}:workers`;
  }

  /** STRING: the encrypted credentials for the provider of a skill registered from elsewhere. */
  providerCredentials(skillId: string): string {
    return `${this.prefix}:provider-credentials:${skillId}`;
  }
}
