import type { SkillSchemas } from '@skillrun/core';
import { SkillPauses } from '@skillrun/core/data';
import type { WorkerConfig } from '../config';
import type { SkillSandbox } from '../sandbox/skill-sandbox';
import type { WorkerShared } from '../worker-shared';
import { HostedSkills } from './hosted-skills';
import type { LoadedSkill } from './loaded-skill';
import { ModuleBundler } from './module-bundler';
import { SkillAdvertiser } from './skill-advertiser';
import { loadSkills } from './skill-loader';
import { SkillReloader } from './skill-reloader';
import { SkillWatcher } from './skill-watcher';

/** The skill versions this worker hosts, as loaded at its start. */
export interface SkillsPart {
  /** Bundles their code (and the sandbox thread's), now and when they are loaded again. */
  bundler: ModuleBundler;
  hosted: HostedSkills;
}

/** What keeps the hosted skills known: advertised to the registry, and loaded again as they change. */
export interface SkillUpkeep {
  advertiser: SkillAdvertiser;
  /** Loading skills again as their files change, with SKILLS_WATCH. */
  watcher?: SkillWatcher;
}

/**
 * Loads the skills of SKILLS_DIR that WORKER_SKILLS selects (all without it), before any connection
 * is opened: a skill that does not load stops the start.
 */
export async function buildSkills(config: WorkerConfig, schemas: SkillSchemas): Promise<SkillsPart> {
  const bundler = await ModuleBundler.create();
  const skills = selectSkills(await loadSkills(config.SKILLS_DIR, schemas, bundler), config.WORKER_SKILLS);
  return { bundler, hosted: new HostedSkills(skills) };
}

/** The advertiser of the hosted skills and, with SKILLS_WATCH, their watcher. */
export function buildSkillUpkeep(
  { config, logger, redis, keys, queues, registry, schemas }: WorkerShared,
  { bundler, hosted }: SkillsPart,
  sandbox: SkillSandbox,
): SkillUpkeep {
  const advertiser = new SkillAdvertiser({
    registry,
    pauses: new SkillPauses({ redis, keys, queues, registry }),
    workerId: config.WORKER_ID,
    skills: hosted.all,
    intervalMs: config.HEARTBEAT_INTERVAL_MS,
    scaleToZero: config.WORKER_SCALE_TO_ZERO,
    logger,
  });
  const reloader = new SkillReloader({ hosted, schemas, bundler, registry, advertiser, sandbox });
  return {
    advertiser,
    ...(config.SKILLS_WATCH ? { watcher: new SkillWatcher({ hosted, reloader, logger }) } : {}),
  };
}

function selectSkills(skills: LoadedSkill[], only: string | undefined): LoadedSkill[] {
  if (!only) return skills;
  const wanted = new Set(
    only
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean),
  );
  const selects = (skill: LoadedSkill, id: string) =>
    id === skill.definition.name || id === `${skill.definition.name}@${skill.definition.version}`;
  const missing = [...wanted].filter((id) => !skills.some((skill) => selects(skill, id)));
  if (missing.length > 0)
    throw new Error(`WORKER_SKILLS names skills that were not found: ${missing.join(', ')}`);
  return skills.filter((skill) => [...wanted].some((id) => selects(skill, id)));
}
