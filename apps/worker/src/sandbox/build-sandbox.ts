import type { SkillsPart } from '../skills/build-skills';
import type { LoadedSkill } from '../skills/loaded-skill';
import type { WorkerShared } from '../worker-shared';
import { SANDBOX_THREAD_ENTRY, SkillSandbox } from './skill-sandbox';

/**
 * The sandbox code skills run in, its threads loaded: jobs are taken once the consumers start, and
 * their deadlines must not run while threads load.
 */
export async function buildSandbox(
  { config, logger, stream }: WorkerShared,
  { bundler, hosted }: SkillsPart,
): Promise<SkillSandbox> {
  const sandbox = new SkillSandbox({
    threadModule: await bundler.bundle('_sandbox-thread', SANDBOX_THREAD_ENTRY),
    threads: config.SANDBOX_THREADS,
    memoryLimitMb: config.SANDBOX_THREAD_MEMORY_MB,
    skillMemoryLimitsMb: declaredMemoryLimits(hosted.all),
    abortGraceMs: config.ABORT_GRACE_MS,
    logger,
    memory: { target: config.redisTarget, prefix: config.KEY_PREFIX, livenessMs: config.REDIS_LIVENESS_MS },
    stream,
  });
  await sandbox.ready();
  return sandbox;
}

/** The thread memory limits the hosted skills that run in threads declare (skill.json memory_mb). */
function declaredMemoryLimits(skills: LoadedSkill[]): number[] {
  return skills.flatMap(({ body }) =>
    'code' in body && body.code.isolation === 'thread' && body.code.memoryMb !== undefined
      ? [body.code.memoryMb]
      : [],
  );
}
