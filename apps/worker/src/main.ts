import { fileURLToPath } from 'node:url';
import { ConfigError, exitOnStartupError, stopOnSignals } from '@skillrun/core';
import { flushTraces } from '@skillrun/telemetry';
import { loadWorkerConfig } from './config';
import { SkillLoadError } from './skills/skill-loader';
import { WorkerService } from './worker-service';

const CLOSE_MARGIN_MS = 10_000;
const repoSkills = fileURLToPath(new URL('../../../skills', import.meta.url));

async function main(): Promise<void> {
  const config = loadWorkerConfig(process.env, { skillsDir: repoSkills });
  const service = new WorkerService(config);
  await service.start();
  // Past the grace period, handing jobs back needs Redis: if it is away, the locks lapse instead.
  const deadlineMs = config.SHUTDOWN_GRACE_MS + CLOSE_MARGIN_MS;
  stopOnSignals(service.logger, () => service.close(), {
    what: 'finishing running executions',
    deadlineMs,
    flush: flushTraces,
  });
}

main().catch((error: unknown) => exitOnStartupError(error, [ConfigError, SkillLoadError]));
