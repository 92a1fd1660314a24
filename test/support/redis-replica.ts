import { type ChildProcess, spawn } from 'node:child_process';
import { findRedisServer, freePort } from '@skillrun/redis-server';
import { Redis } from 'ioredis';

/**
 * A redis-server replicating the one on `masterPort` (127.0.0.1), its copy in `dir`. `pause()`
 * stops the process (SIGSTOP): it holds its connections and answers nothing, acknowledges no write,
 * until `resume()`; the master still counts it connected.
 */
export class RedisReplica {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(masterPort: number, dir: string): Promise<RedisReplica> {
    const port = await freePort();
    const child = spawn(
      findRedisServer() ?? 'redis-server',
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
        ...['--replicaof', '127.0.0.1', String(masterPort)],
      ],
      { stdio: 'ignore' },
    );
    const replica = new RedisReplica(child, port);
    const asked = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => 100 });
    asked.on('error', () => {});
    try {
      const deadline = Date.now() + 20_000;
      while (!(await asked.info('replication').catch(() => '')).includes('master_link_status:up')) {
        if (Date.now() > deadline) throw new Error(`the replica on ${port} did not follow its master`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    } finally {
      asked.disconnect();
    }
    return replica;
  }

  pause(): void {
    this.child.kill('SIGSTOP');
  }

  resume(): void {
    this.child.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.resume();
    this.child.kill('SIGKILL');
    await exited;
  }
}
