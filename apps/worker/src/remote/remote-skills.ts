import { type SkillDescriptor, toInputSchema } from '@skillrun/core';
import type { SkillRegistry } from '@skillrun/core/data';
import type { LoadedSkill } from '../skills/loaded-skill';

interface Cached {
  skill: LoadedSkill | undefined;
  expires: number;
}

/**
 * The skills registered from elsewhere, as the worker runs them: each version's descriptor read
 * from the registry (cached for `cacheMs`) and given the shape of a hosted skill whose body calls
 * the provider: its inputs' schema, its output schema, its endpoint's timeout.
 */
export class RemoteSkills {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly registry: SkillRegistry,
    private readonly cacheMs: number,
  ) {}

  /** The registered version, or undefined when the registry has no such version (any more). */
  async get(skillId: string, version: string): Promise<LoadedSkill | undefined> {
    const key = `${skillId}@${version}`;
    const cached = this.cache.get(key);
    if (cached && cached.expires > Date.now()) return cached.skill;
    const entry = (await this.registry.versions(skillId)).find((each) => each.version === version);
    const skill = entry?.source === 'registered' ? toLoadedSkill(entry.descriptor) : undefined;
    this.cache.set(key, { skill, expires: Date.now() + this.cacheMs });
    return skill;
  }
}

function toLoadedSkill(descriptor: SkillDescriptor): LoadedSkill {
  return {
    definition: {
      name: descriptor.id,
      description: descriptor.description,
      category: descriptor['x-category'] ?? 'remote',
      input: toInputSchema(descriptor),
      output: descriptor.output.schema,
      // Not a mode of skill.json: the body (kind "remote") is what runs.
      mode: 'code',
      calls: [],
      version: descriptor.version,
      tags: descriptor.tags ?? [],
      timeout: descriptor.endpoint.timeout_ms,
      retry: Math.max(0, descriptor.endpoint.retry.max_attempts - 1),
    },
    publication: {
      ...(descriptor['x-coercion'] === undefined ? {} : { 'x-coercion': descriptor['x-coercion'] }),
    },
    file: descriptor.endpoint.url,
    body: { kind: 'remote', descriptor },
  };
}
