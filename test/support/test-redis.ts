import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, RedisServerProcess } from '@skillrun/redis-server';
import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer } from 'testcontainers';

/** A Redis of the test's own: never the shared one on 6379. */
export interface TestRedis {
  url: string;
  /** Takes Redis away abruptly (a crash, or a container stopped). */
  kill(): Promise<void>;
  /** Brings it back on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

let dockerAnswers: Promise<boolean> | undefined;

/** Whether a Docker engine answers; asked once per test process. */
function dockerAvailable(): Promise<boolean> {
  dockerAnswers ??= Promise.race([
    getContainerRuntimeClient().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000).unref()),
  ]);
  return dockerAnswers;
}

export interface TestRedisOptions {
  /**
   * Keeps an append-only file (fsync every second, as production runs it), so that what Redis
   * acknowledged survives a kill and restart. Always a redis-server child: a container's file
   * would go with the container.
   */
  persistent?: boolean;
}

/** testcontainers where a Docker engine answers, otherwise a redis-server child on a free port. */
export async function startTestRedis(options: TestRedisOptions = {}): Promise<TestRedis> {
  if (options.persistent) return processRedis(await mkdtemp(join(tmpdir(), 'skillrun-redis-')));
  return (await dockerAvailable()) ? containerRedis() : processRedis();
}

async function processRedis(dir?: string): Promise<TestRedis> {
  const server = await RedisServerProcess.start(dir === undefined ? {} : { dir });
  return {
    url: server.url,
    kill: () => server.stop('SIGKILL'),
    restart: () => server.start(),
    stop: async () => {
      await server.stop();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}

async function containerRedis(): Promise<TestRedis> {
  const port = await freePort();
  const start = () =>
    new GenericContainer('redis:7-alpine')
      .withCommand(['redis-server', '--maxmemory-policy', 'noeviction', '--save', ''])
      .withExposedPorts({ container: 6379, host: port })
      .start();
  let container: StartedTestContainer | undefined = await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill: async () => {
      await container?.stop({ timeout: 0 });
      container = undefined;
    },
    restart: async () => {
      container = await start();
    },
    stop: async () => {
      await container?.stop();
      container = undefined;
    },
  };
}
