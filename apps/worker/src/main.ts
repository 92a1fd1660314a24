import { fileURLToPath } from 'node:url';
import { ConfigError } from '@skillrun/core';
import { loadWorkerConfig } from './config';
import { SkillLoadError } from './skill-loader';
import { WorkerService } from './worker-service';

const repoSkills = fileURLToPath(new URL('../../../skills', import.meta.url));

async function main(): Promise<void> {
  const config = loadWorkerConfig(process.env, { skillsDir: repoSkills });
  const service = new WorkerService(config);
  await service.start();
  const stop = (signal: string) => {
    service.logger.info({ signal }, 'stopping: finishing running executions');
    service.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof SkillLoadError;
  console.error(known ? error.message : error);
  process.exit(1);
});
