import { SkillError } from '../errors/skill-error';
import type { InputMigration } from '../schemas/input-migration';
import type { Deprecation } from '../schemas/skill-descriptor';
import type { VersionChoice } from '../schemas/skill-rollout';
import type { RegistryEntry, RegistryVersion } from '../store/registry-entry';
import type { SkillRegistry } from '../store/skill-registry';
import { NO_ROLLOUT, type RolloutState, type SkillRollouts } from '../store/skill-rollouts';
import { resolveVersion } from './resolve-version';
import { rolloutBucket } from './rollout-bucket';
import { toCandidate } from './version-contract';

export interface ResolvedSkill {
  /** The version that will run (with what an operator set for its skill: its approval policy). */
  entry: RegistryVersion;
  /** How the caller's inputs are upgraded first (empty unless an older major was asked for). */
  migrations: InputMigration[];
  deprecation?: Deprecation;
}

/** The version an invocation runs, and what chose it (SkillResolver.choose). */
export interface ChosenSkill extends ResolvedSkill {
  chosenBy: VersionChoice;
}

/** What the registry says about a skill: its versions, and its rollout (NO_ROLLOUT unless read). */
interface Catalog {
  versions: RegistryVersion[];
  rollout: RolloutState;
}

/**
 * Which version of a skill an invocation runs. What the registry says about a skill is cached for
 * a short time, so that a burst of invocations costs one Redis read, not one each; only skills
 * that exist are cached, so a newly published one is invocable at once. With `rollouts`, the
 * skill's rollout is read with its versions (sent together: no round trip more) and cached with
 * them, so a change of a rollout reaches every invocation within the cache's time.
 */
export class SkillResolver {
  private readonly cache = new Map<string, Catalog & { until: number }>();
  /**
   * The reads under way (while caching): the invocations that miss the cache meanwhile wait for the
   * same read. Otherwise each expiry of a busy skill's entry cost a read per invocation in flight,
   * tens of them under load.
   */
  private readonly reading = new Map<string, Promise<Catalog>>();

  constructor(
    private readonly registry: SkillRegistry,
    /** Which versions callers may see, unless a call says (a composite's steps may use private ones). */
    private readonly visible: (entry: RegistryEntry) => boolean,
    private readonly ttlMs: number,
    /** The skills' rollouts, which `choose` follows; without them every skill has none. */
    private readonly rollouts?: SkillRollouts,
  ) {}

  /** The version to run for `range` (latest when undefined); SKILL_NOT_FOUND when there is none. */
  async resolve(
    skillId: string,
    range: string | undefined,
    isVisible: (entry: RegistryEntry) => boolean = this.visible,
  ): Promise<ResolvedSkill> {
    const { versions } = await this.catalogOf(skillId);
    return resolveAmong(skillId, versions, range, isVisible);
  }

  /**
   * The version a caller's invocation runs: the range it names wins; else the caller's pin (its
   * range, as if named); else, under a ramp, the ramped version for the callers whose bucket
   * (rolloutBucket) is below its percent and the best other version for the rest; else the latest.
   * A ramped version that is not available (its workers gone) sends its callers to the others.
   */
  async choose(
    skillId: string,
    range: string | undefined,
    callerId: string,
    isVisible: (entry: RegistryEntry) => boolean = this.visible,
  ): Promise<ChosenSkill> {
    // A catalog still cached is taken without a turn of the event loop (the hot path: POST invoke).
    const { versions, rollout } = this.cached(skillId) ?? (await this.catalogOf(skillId));
    if (range !== undefined)
      return { ...resolveAmong(skillId, versions, range, isVisible), chosenBy: 'request' };
    const pin = rollout.pins.get(callerId);
    if (pin) {
      try {
        return { ...resolveAmong(skillId, versions, pin.version, isVisible), chosenBy: 'pin' };
      } catch (error) {
        throw pinUnmet(error, callerId);
      }
    }
    const { ramp } = rollout;
    if (!ramp) return { ...resolveAmong(skillId, versions, undefined, isVisible), chosenBy: 'default' };
    const rampable = (version: RegistryEntry) => version.version === ramp.version && isVisible(version);
    const ramped = versions.some((version) => version.available && rampable(version));
    if (ramped && rolloutBucket(callerId, skillId) < ramp.percent)
      return { ...resolveAmong(skillId, versions, ramp.version, rampable), chosenBy: 'ramp' };
    const others = (version: RegistryEntry) => version.version !== ramp.version && isVisible(version);
    const anyOther = versions.some((version) => version.available && others(version));
    return {
      ...resolveAmong(skillId, versions, undefined, anyOther ? others : isVisible),
      chosenBy: 'default',
    };
  }

  /** The skill's catalog as cached, while it is still trusted. */
  private cached(skillId: string): Catalog | undefined {
    const hit = this.cache.get(skillId);
    return hit && hit.until > Date.now() ? hit : undefined;
  }

  private async catalogOf(skillId: string): Promise<Catalog> {
    const hit = this.cached(skillId);
    if (hit) return hit;
    const shared = this.reading.get(skillId);
    if (shared) {
      const catalog = await shared;
      // That read began before this invocation: a skill it did not find may be published since.
      if (catalog.versions.some((version) => version.available)) return catalog;
    }
    return this.read(skillId);
  }

  private read(skillId: string): Promise<Catalog> {
    const now = Date.now();
    const read = Promise.all([
      this.registry.versions(skillId, now),
      this.rollouts?.of(skillId) ?? NO_ROLLOUT,
    ]).then(([versions, rollout]) => {
      const catalog = { versions, rollout };
      if (this.ttlMs > 0 && versions.some((version) => version.available)) {
        if (this.cache.size > 10_000) this.cache.clear();
        this.cache.set(skillId, { ...catalog, until: now + this.ttlMs });
      }
      return catalog;
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

/** The version to run for `range` among the skill's versions that `isVisible` lets through. */
function resolveAmong(
  skillId: string,
  versions: RegistryVersion[],
  range: string | undefined,
  isVisible: (entry: RegistryEntry) => boolean,
): ResolvedSkill {
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

/**
 * A pinned caller's refusal, when no version of its pin's range can run: said as the pin's, since
 * the caller named no version (leaving it out, as the usual advice goes, is what it did).
 */
function pinUnmet(error: unknown, callerId: string): unknown {
  if (!(error instanceof SkillError) || error.code !== 'SKILL_NOT_FOUND') return error;
  return new SkillError('SKILL_NOT_FOUND', `${error.message}: the range caller "${callerId}" is pinned to`, {
    ...error.options,
    suggestedAction: 'Name an available version in the invocation, or ask an admin to change the pin',
  });
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
