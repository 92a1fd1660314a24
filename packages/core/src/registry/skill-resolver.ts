import { SkillError } from '../errors/skill-error';
import type { InputMigration } from '../schemas/input-migration';
import type { Deprecation } from '../schemas/skill-descriptor';
import type { RegistryEntry, RegistryVersion } from '../store/registry-entry';
import type { SkillRegistry } from '../store/skill-registry';
import { resolveVersion } from './resolve-version';
import { toCandidate } from './version-contract';

export interface ResolvedSkill {
  /** The version that will run (with what an operator set for its skill: its approval policy). */
  entry: RegistryVersion;
  /** How the caller's inputs are upgraded first (empty unless an older major was asked for). */
  migrations: InputMigration[];
  deprecation?: Deprecation;
}

/**
 * Which version of a skill an invocation runs. What the registry says about a skill is cached for
 * a short time, so that a burst of invocations costs one Redis read, not one each; only skills
 * that exist are cached, so a newly published one is invocable at once.
 */
export class SkillResolver {
  private readonly cache = new Map<string, { versions: RegistryVersion[]; until: number }>();
  /**
   * The reads under way (while caching): the invocations that miss the cache meanwhile wait for the
   * same read. Otherwise each expiry of a busy skill's entry cost a read per invocation in flight,
   * tens of them under load.
   */
  private readonly reading = new Map<string, Promise<RegistryVersion[]>>();

  constructor(
    private readonly registry: SkillRegistry,
    /** Which versions callers may see, unless a call says (a composite's steps may use private ones). */
    private readonly visible: (entry: RegistryEntry) => boolean,
    private readonly ttlMs: number,
  ) {}

  /** The version to run for `range` (latest when undefined); SKILL_NOT_FOUND when there is none. */
  async resolve(
    skillId: string,
    range: string | undefined,
    isVisible: (entry: RegistryEntry) => boolean = this.visible,
  ): Promise<ResolvedSkill> {
    const versions = await this.versionsOf(skillId);
    const visible = versions.filter(isVisible);
    const available = visible.filter((version) => version.available);
    const resolution = resolveVersion(available.map(toCandidate), range, versions.map(toCandidate));
    const chosen = resolution && available.find((version) => version.version === resolution.version);
    if (!resolution || !chosen) {
      const lapsed = visible.filter((version) => version.lapsed);
      if (
        lapsed.length > 0 &&
        resolveVersion([...available, ...lapsed].map(toCandidate), range, versions.map(toCandidate))
      ) {
        throw new SkillError(
          'SERVICE_UNAVAILABLE',
          `The workers hosting "${skillId}" have not been heard from for a moment; retry shortly`,
        );
      }
      throw notFound(skillId, range, available);
    }
    return {
      entry: chosen,
      migrations: resolution.migrations,
      ...(chosen.deprecation ? { deprecation: chosen.deprecation } : {}),
    };
  }

  private async versionsOf(skillId: string): Promise<RegistryVersion[]> {
    const hit = this.cache.get(skillId);
    if (hit && hit.until > Date.now()) return hit.versions;
    const shared = this.reading.get(skillId);
    if (shared) {
      const versions = await shared;
      // That read began before this invocation: a skill it did not find may be published since.
      if (versions.some((version) => version.available)) return versions;
    }
    return this.read(skillId);
  }

  private read(skillId: string): Promise<RegistryVersion[]> {
    const now = Date.now();
    const read = this.registry.versions(skillId, now).then((versions) => {
      if (this.ttlMs > 0 && versions.some((version) => version.available)) {
        if (this.cache.size > 10_000) this.cache.clear();
        this.cache.set(skillId, { versions, until: now + this.ttlMs });
      }
      return versions;
    });
    if (this.ttlMs > 0) {
      this.reading.set(skillId, read);
      const done = () => {
        if (this.reading.get(skillId) === read) this.reading.delete(skillId);
      };
      read.then(done, done);
    }
    return read;
  }
}

function notFound(skillId: string, range: string | undefined, available: RegistryVersion[]): SkillError {
  if (available.length === 0 || range === undefined) {
    return new SkillError('SKILL_NOT_FOUND', `No skill "${skillId}" is available`);
  }
  return new SkillError('SKILL_NOT_FOUND', `No available version of "${skillId}" satisfies "${range}"`, {
    details: { requested_version: range, available_versions: available.map((version) => version.version) },
    suggestedAction: 'Ask for one of the available versions, or leave the version out for the latest',
  });
}
