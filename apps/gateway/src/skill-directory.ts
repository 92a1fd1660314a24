import type { SkillCatalog, SkillDefinition } from '@skillrun/core';

/**
 * The gateway's view of the catalog, cached for a short time so that a burst of invocations of
 * one skill costs one Redis read, not one each. Gateways stay stateless: the cache only delays
 * what they see by at most `ttlMs`.
 */
export class SkillDirectory {
  private readonly cache = new Map<string, { skill: SkillDefinition | null; until: number }>();

  constructor(
    private readonly catalog: SkillCatalog,
    private readonly ttlMs: number,
  ) {}

  async get(skillId: string): Promise<SkillDefinition | null> {
    const now = Date.now();
    const hit = this.cache.get(skillId);
    if (hit && hit.until > now) return hit.skill;
    const skill = await this.catalog.get(skillId, now);
    if (this.ttlMs > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(skillId, { skill, until: now + this.ttlMs });
    }
    return skill;
  }

  list(): Promise<SkillDefinition[]> {
    return this.catalog.list();
  }
}
