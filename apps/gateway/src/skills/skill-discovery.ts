import {
  type DescriptorContext,
  describeVersion,
  type Principal,
  pickVersion,
  type SkillDescriptor,
  SkillError,
  type SkillSearchPage,
  type SkillSearchQuery,
  type SkillVersionList,
  type SkillVersionSummary,
  skillUrls,
} from '@skillrun/core';
import { type RegistryVersion, type SkillPauses, type SkillRegistry, toCandidate } from '@skillrun/core/data';
import semver from 'semver';
import { overseesAll } from '../auth/role-of';
import type { SkillAccess } from '../auth/skill-access';
import { decodeCursor, encodeCursor } from '../http/page-cursor';

/**
 * What consumers discover: search with cursor pagination, one skill's descriptor at a version
 * range, and its versions. Reads go to Redis every time, so that what one gateway publishes every
 * gateway shows at once. Only available, visible versions are ever shown.
 */
export class SkillDiscovery {
  constructor(
    private readonly registry: SkillRegistry,
    private readonly context: DescriptorContext,
    private readonly access: SkillAccess,
    private readonly pauses: SkillPauses,
  ) {}

  /** `viewer` sees private skills it owns or is granted, besides the public and restricted ones. */
  async search(query: SkillSearchQuery, viewer?: Principal): Promise<SkillSearchPage> {
    const skills: SkillDescriptor[] = [];
    let after = query.cursor === undefined ? undefined : afterIdOf(query.cursor);
    const batch = Math.max(query.limit * 2, 100);
    while (skills.length <= query.limit) {
      const ids = await this.registry.ids(after, batch);
      const versions = await this.registry.versionsOf(ids);
      for (const id of ids) {
        const latest = this.latest(versions.get(id) ?? [], undefined, viewer);
        if (latest && matches(latest, query)) skills.push(latest);
      }
      if (ids.length < batch) break;
      after = ids.at(-1);
    }
    const page = skills.slice(0, query.limit);
    const last = page.at(-1);
    return { skills: page, next_cursor: skills.length > query.limit && last ? cursorAfter(last.id) : null };
  }

  /**
   * The descriptor of the best available version in `range` (the latest when undefined); a role
   * sees `x-paused` too while an operator holds the skill.
   */
  async describe(skillId: string, range: string | undefined, viewer?: Principal): Promise<SkillDescriptor> {
    const [versions, pause] = await Promise.all([
      this.registry.versions(skillId),
      overseesAll(viewer) ? this.pauses.of(skillId) : undefined,
    ]);
    const descriptor = this.latest(versions, range, viewer);
    if (!descriptor) {
      throw new SkillError(
        'SKILL_NOT_FOUND',
        range === undefined
          ? `No skill "${skillId}" is available`
          : `No available version of "${skillId}" satisfies "${range}"`,
      );
    }
    return pause ? { ...descriptor, 'x-paused': pause } : descriptor;
  }

  async versions(skillId: string, viewer?: Principal): Promise<SkillVersionList> {
    const shown = this.shown(await this.registry.versions(skillId), viewer);
    const latest = pickVersion(shown.map(toCandidate), undefined);
    if (latest === undefined) throw new SkillError('SKILL_NOT_FOUND', `No skill "${skillId}" is available`);
    const versions = shown
      .sort((a, b) => semver.rcompare(a.version, b.version))
      .map((version) => this.summary(version));
    return { skill_id: skillId, latest, versions };
  }

  summary(version: RegistryVersion): SkillVersionSummary {
    return {
      version: version.version,
      source: version.source,
      registered_at: version.registered_at,
      ...(version.deprecation ? { deprecated: version.deprecation } : {}),
      ...(version.dormant ? { dormant: true as const } : {}),
      descriptor_url: `${skillUrls(this.context.baseUrl, version.id).skill}?version=${encodeURIComponent(version.version)}`,
    };
  }

  /** The available versions the viewer may see. */
  shown(versions: RegistryVersion[], viewer: Principal | undefined): RegistryVersion[] {
    return versions.filter((version) => version.available && this.access.canSee(version, viewer));
  }

  private latest(
    versions: RegistryVersion[],
    range: string | undefined,
    viewer: Principal | undefined,
  ): SkillDescriptor | undefined {
    const shown = this.shown(versions, viewer);
    const picked = pickVersion(shown.map(toCandidate), range);
    const version = shown.find((each) => each.version === picked);
    return version && describeVersion(version, this.context);
  }
}

function matches(descriptor: SkillDescriptor, query: SkillSearchQuery): boolean {
  const tags = (descriptor.tags ?? []).map((tag) => tag.toLowerCase());
  if (query.tag !== undefined && !tags.includes(query.tag.toLowerCase())) return false;
  if (query.capability_type !== undefined && descriptor.capability_type !== query.capability_type)
    return false;
  if (
    query.category !== undefined &&
    descriptor['x-category']?.toLowerCase() !== query.category.toLowerCase()
  ) {
    return false;
  }
  if (query.q === undefined) return true;
  const text = [descriptor.id, descriptor.name, descriptor.description, ...tags].join('\n').toLowerCase();
  return query.q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => text.includes(word));
}

function cursorAfter(afterId: string): string {
  return encodeCursor({ after: afterId });
}

function afterIdOf(cursor: string): string {
  return decodeCursor(cursor, ({ after }) => (typeof after === 'string' ? after : undefined));
}
