import { relative } from 'node:path';
import type { SkillSchemas } from '@skillrun/core';
import type { SkillRegistry } from '@skillrun/core/data';
import { checkComposites } from '../composite/check-composites';
import type { SkillSandbox } from '../sandbox/skill-sandbox';
import type { HostedSkills } from './hosted-skills';
import type { LoadedSkill } from './loaded-skill';
import type { ModuleBundler } from './module-bundler';
import type { SkillAdvertiser } from './skill-advertiser';
import { loadSkill, SkillLoadError } from './skill-loader';

export interface SkillReloaderOptions {
  hosted: HostedSkills;
  schemas: SkillSchemas;
  bundler: ModuleBundler;
  registry: SkillRegistry;
  advertiser: SkillAdvertiser;
  sandbox: SkillSandbox;
}

/**
 * Loads a hosted skill again from its skill.json (SKILLS_WATCH), checks the new load as a worker's
 * start checks every skill, and puts it in the place of the previous one: advertised, then served.
 * What a running worker cannot take (another name or version: other queues; a memory limit it has
 * no sandbox threads for) is refused as a skill that does not load is, with a SkillLoadError.
 */
export class SkillReloader {
  constructor(private readonly options: SkillReloaderOptions) {}

  async reload(name: string, version: string): Promise<LoadedSkill> {
    const { hosted, schemas, bundler, registry, advertiser } = this.options;
    const previous = hosted.current(name, version);
    const next = await loadSkill(previous.file, schemas, bundler);
    this.refuseWhatNeedsARestart(next, `${name}@${version}`);
    await checkComposites(
      hosted.all.map((skill) => (skill === previous ? next : skill)),
      registry,
    );
    const conflicts = await advertiser.update(next);
    if (conflicts.length > 0) throw new SkillLoadError(conflicts.join('; '));
    hosted.replace(next);
    return next;
  }

  private refuseWhatNeedsARestart(next: LoadedSkill, hostedAs: string): void {
    const where = relative(process.cwd(), next.file) || next.file;
    const { name, version } = next.definition;
    if (`${name}@${version}` !== hostedAs) {
      throw new SkillLoadError(
        `${where}: it now defines ${name}@${version}; the worker hosts another name or version after a restart`,
      );
    }
    const code = 'code' in next.body ? next.body.code : undefined;
    if (code?.isolation === 'thread' && !this.options.sandbox.runsMemoryLimit(code.memoryMb)) {
      throw new SkillLoadError(
        `${where}: field "memory_mb": the worker has no sandbox threads of ${code.memoryMb} MB before a restart`,
      );
    }
  }
}
