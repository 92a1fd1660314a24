import { fileURLToPath } from 'node:url';
import { ConfigError, exitOnStartupError, stopOnSignals } from '@skillrun/core';
import { GatewayService, loadGatewayConfig } from '@skillrun/gateway';
import { flushTraces } from '@skillrun/telemetry';
import { loadWorkerConfig, SkillLoadError, WorkerService } from '@skillrun/worker';
import { announceLocalAdminKey } from './local-admin-key';
import { chooseRedis } from './private-redis';
import { StandaloneData } from './standalone-data';

/** What closing may take beyond the longest request or execution it lets finish. */
const CLOSE_MARGIN_MS = 10_000;

const repo = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));

/** The whole service in one process: a gateway and a worker, and Redis if none is at hand. */
async function main(): Promise<void> {
  const data = StandaloneData.of(process.env, repo(''));
  const redis = await chooseRedis(process.env, data);
  const env = { ...process.env, REDIS_URL: redis.url };
  // One port to choose, PORT: the worker's /metrics takes a free port (its ready line names it)
  // unless METRICS_PORT says, so two `npm start`s with only PORT changed run side by side.
  const workerEnv = { ...env, METRICS_PORT: process.env.METRICS_PORT || '0' };
  const workerConfig = loadWorkerConfig(workerEnv, { skillsDir: repo('skills'), watchSkills: true });
  const worker = new WorkerService(workerConfig);
  const gatewayConfig = loadGatewayConfig(env);
  const gateway = new GatewayService(gatewayConfig);
  if (redis.owned)
    gateway.logger.info(
      { redis_url: redis.url },
      `started a private redis-server (data in ${data.redisDir})`,
    );
  const stop = async () => {
    await gateway.close();
    await worker.close();
    await data.removeRedisUrl();
    await redis.owned?.stop();
  };
  try {
    // The gateway listens while the worker waits for a Redis that does not answer yet.
    await Promise.all([worker.start(), gateway.start()]);
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
  // As each process alone: requests and running executions may finish, within a bound (closing can
  // wait on a Redis that is away, and a process that outlives its signal is one nobody stops).
  stopOnSignals(gateway.logger, stop, {
    deadlineMs: Math.max(gatewayConfig.REQUEST_TIMEOUT_MS, workerConfig.SHUTDOWN_GRACE_MS) + CLOSE_MARGIN_MS,
    flush: flushTraces,
  });
  const base = gatewayConfig.PUBLIC_BASE_URL.replace(/\/$/, '');
  const urls = { console_url: `${base}/console/`, docs_url: `${base}/docs` };
  gateway.logger.info(urls, `open the console at ${urls.console_url} and the API docs at ${urls.docs_url}`);
  // For `skillrun keys` without REDIS_URL; and a first credential for the console and the CLI.
  if (!redis.named)
    await data
      .writeRedisUrl(redis.url)
      .catch((error: unknown) => gateway.logger.warn({ err: error }, 'could not say where Redis is'));
  const { redisTarget: target, KEY_PREFIX: keyPrefix, REDIS_LIVENESS_MS: livenessMs } = gatewayConfig;
  await announceLocalAdminKey(gateway.logger, { target, keyPrefix, livenessMs }, data);
}

main().catch((error: unknown) => exitOnStartupError(error, [ConfigError, SkillLoadError]));
