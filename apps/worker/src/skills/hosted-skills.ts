import type { LoadedSkill } from './loaded-skill';

/**
 * The skill versions a worker hosts, each as last loaded. A job takes its version's current load
 * when it starts, so a skill loaded again (SKILLS_WATCH) serves the next executions while those
 * running finish with the load they started with.
 */
export class HostedSkills {
  private readonly byVersion = new Map<string, LoadedSkill>();

  constructor(skills: LoadedSkill[]) {
    for (const skill of skills) this.byVersion.set(versionOf(skill), skill);
  }

  /** Every hosted version, in the order they were loaded at start. */
  get all(): LoadedSkill[] {
    return [...this.byVersion.values()];
  }

  /** The current load of a version this worker hosts. */
  current(name: string, version: string): LoadedSkill {
    const skill = this.byVersion.get(`${name}@${version}`);
    if (!skill) throw new Error(`${name}@${version} is not hosted by this worker`);
    return skill;
  }

  /** Puts a new load of a hosted version in the place of its previous one. */
  replace(skill: LoadedSkill): void {
    const version = versionOf(skill);
    if (!this.byVersion.has(version)) throw new Error(`${version} is not hosted by this worker`);
    this.byVersion.set(version, skill);
  }
}

function versionOf({ definition }: LoadedSkill): string {
  return `${definition.name}@${definition.version}`;
}
