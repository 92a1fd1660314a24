import { fileURLToPath } from 'node:url';
import { ConfigError, exitOnStartupError, stopOnSignals } from '@skillrun/core';
import { loadWorkerConfig } from './config';
import { SkillLoadError } from './skill-loader';
import { WorkerService } from './worker-service';

const repoSkills = fileURLToPath(new URL('../../../skills', import.meta.url));

async function main(): Promise<void> {
  const service = new WorkerService(loadWorkerConfig(process.env, { skillsDir: repoSkills }));
  await service.start();
  stopOnSignals(service.logger, () => service.close(), 'finishing running executions');
}

main().catch((error: unknown) => exitOnStartupError(error, [ConfigError, SkillLoadError]));
