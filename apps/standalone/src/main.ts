import { fileURLToPath } from 'node:url';
import { ConfigError, exitOnStartupError, stopOnSignals } from '@skillrun/core';
import { GatewayService, loadGatewayConfig } from '@skillrun/gateway';
import { flushTraces } from '@skillrun/telemetry';
import { loadWorkerConfig, SkillLoadError, WorkerService } from '@skillrun/worker';
import { chooseRedis } from './private-redis';

const repo = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));

/** The whole service in one process: a gateway and a worker, and Redis if none is at hand. */
async function main(): Promise<void> {
  const redis = await chooseRedis(process.env, repo('.data/redis'));
  const env = { ...process.env, REDIS_URL: redis.url };
  const worker = new WorkerService(loadWorkerConfig(env, { skillsDir: repo('skills'), watchSkills: true }));
  const gatewayConfig = loadGatewayConfig(env);
  const gateway = new GatewayService(gatewayConfig);
  if (redis.owned)
    gateway.logger.info({ redis_url: redis.url }, 'started a private redis-server (data in .data/redis)');
  const stop = async () => {
    await gateway.close();
    await worker.close();
    await redis.owned?.stop();
  };
  try {
    await worker.start();
    await gateway.start();
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
  stopOnSignals(gateway.logger, stop, { flush: flushTraces });
  const base = gatewayConfig.PUBLIC_BASE_URL.replace(/\/$/, '');
  const urls = { console_url: `${base}/console/`, docs_url: `${base}/docs` };
  gateway.logger.info(urls, `open the console at ${urls.console_url} and the API docs at ${urls.docs_url}`);
}

main().catch((error: unknown) => exitOnStartupError(error, [ConfigError, SkillLoadError]));
