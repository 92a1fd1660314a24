import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { freePort } from './free-port';
import { pingRedis } from './ping-redis';

export interface RedisServerOptions {
  /** Defaults to a free port. */
  port?: number;
  /** Working directory for the append-only file (and a cluster node's nodes file). */
  dir?: string;
  /** Whether writes go to an append-only file in `dir`: by default, whenever there is a `dir`. */
  appendOnly?: boolean;
  /**
   * A Redis Cluster node: it keeps its view of the cluster in `nodes-<port>.conf` in `dir` and talks
   * to the other nodes on `busPort`. It announces 127.0.0.1, where it listens, so that clients are
   * told addresses they can reach.
   */
  cluster?: { busPort: number };
  /** How long to wait for the server to answer. */
  startTimeoutMs?: number;
  /** The password clients must give (requirepass); none without. */
  password?: string;
  /**
   * In a process group (and session) of its own, so that a terminal's Ctrl-C, sent to the whole
   * foreground group, reaches its owner only: the owner then stops it once what uses it has closed,
   * rather than finding it gone while it finishes its work. Stopped too when the owner exits
   * without `stop()` (a second Ctrl-C, a deadline), since nothing else would stop it then.
   */
  ownGroup?: boolean;
}

/** The redis-server on the PATH, or undefined. */
export function findRedisServer(path = process.env.PATH ?? ''): string | undefined {
  for (const folder of path.split(delimiter).filter(Boolean)) {
    const candidate = join(folder, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/**
 * A redis-server child process, configured as a queue wants it (noeviction; append-only file when
 * given a folder), alone or as a cluster node. Can be killed and started again on the same port,
 * for outage tests.
 */
export class RedisServerProcess {
  private child: ChildProcess | undefined;

  private constructor(
    private readonly binary: string,
    readonly port: number,
    private readonly options: RedisServerOptions,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(options: RedisServerOptions = {}): Promise<RedisServerProcess> {
    const binary = findRedisServer();
    if (!binary) throw new Error('redis-server is not on the PATH');
    const server = new RedisServerProcess(binary, options.port ?? (await freePort()), options);
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    const { dir, appendOnly = dir !== undefined, cluster, password, ownGroup = false } = this.options;
    if (dir) mkdirSync(dir, { recursive: true });
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--maxmemory-policy',
      'noeviction',
      '--appendonly',
      appendOnly ? 'yes' : 'no',
      ...(dir ? ['--dir', dir] : []),
      ...(cluster ? clusterArgs(this.port, cluster.busPort) : []),
      ...(password === undefined ? [] : ['--requirepass', password]),
    ];
    const child = spawn(this.binary, args, { stdio: 'ignore', detached: ownGroup });
    this.child = child;
    if (ownGroup) stopWithOwner(child);
    const deadline = Date.now() + (this.options.startTimeoutMs ?? 10_000);
    while (!(await pingRedis(this.url, 200))) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${this.port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops the server: SIGTERM lets it flush its append-only file, SIGKILL simulates a crash. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}

/** A cluster node's settings; its bus port is given, not port + 10000, which may be taken or too high. */
function clusterArgs(port: number, busPort: number): string[] {
  return [
    ...['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`],
    ...['--cluster-port', String(busPort), '--cluster-announce-ip', '127.0.0.1'],
  ];
}

/** SIGTERM to `child` when this process exits (it flushes its append-only file then), unless it has already. */
function stopWithOwner(child: ChildProcess): void {
  const stop = () => child.kill();
  process.once('exit', stop);
  child.once('exit', () => process.off('exit', stop));
}
