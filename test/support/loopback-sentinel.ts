import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findRedisServer, freePort, pingRedis } from '@skillrun/redis-server';

/** How long a Sentinel may take to answer after it starts. */
const START_TIMEOUT_MS = 10_000;

/**
 * A Sentinel on 127.0.0.1 (a free port) watching the master group `name` at `master` (quorum 1),
 * its configuration file (which it rewrites) in `dir`.
 */
export class LoopbackSentinel {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(
    name: string,
    master: { host: string; port: number },
    dir: string,
  ): Promise<LoopbackSentinel> {
    const port = await freePort();
    const config = join(dir, 'sentinel.conf');
    await writeFile(
      config,
      `port ${port}\nbind 127.0.0.1\nsentinel monitor ${name} ${master.host} ${master.port} 1\n`,
    );
    const child = spawn(findRedisServer() ?? 'redis-server', [config, '--sentinel'], { stdio: 'ignore' });
    const sentinel = new LoopbackSentinel(child, port);
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await pingRedis(`redis://127.0.0.1:${port}`, 200))) {
      if (Date.now() > deadline) {
        sentinel.stop();
        throw new Error('the Sentinel did not answer');
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return sentinel;
  }

  stop(): void {
    this.child.kill();
  }
}
