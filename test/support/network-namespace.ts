import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { CliRun } from './cli-process';
import { repoRoot } from './service-process';

const run = promisify(execFile);

/**
 * A Linux network namespace with a loopback interface and nothing else: a machine where nothing
 * answers on 127.0.0.1 (no Redis on 6379, nothing on 3000), for what depends on the defaults. It
 * takes root and `ip netns` (iproute2); `available()` says whether this machine has both.
 */
export class NetworkNamespace {
  private constructor(readonly name: string) {}

  /** Whether a namespace can be made here: one is made and deleted at once to find out. */
  static available(): boolean {
    if (process.getuid?.() !== 0) return false;
    const probe = `skillrun-probe-${process.pid}`;
    try {
      execFileSync('ip', ['netns', 'add', probe], { stdio: 'ignore' });
      execFileSync('ip', ['netns', 'delete', probe], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  }

  static async create(): Promise<NetworkNamespace> {
    const namespace = new NetworkNamespace(`skillrun-test-${randomBytes(4).toString('hex')}`);
    await run('ip', ['netns', 'add', namespace.name]);
    try {
      await run('ip', namespace.ipArgs('ip', ['link', 'set', 'lo', 'up']));
    } catch (error) {
      await namespace.delete();
      throw error;
    }
    return namespace;
  }

  /** The command that runs the command after it inside (`ip netns exec` execs it: same pid). */
  get exec(): string[] {
    return ['ip', 'netns', 'exec', this.name];
  }

  /** Runs `command` inside to its end, from the repository's root, with only `env` set. */
  async run(command: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
    try {
      const { stdout, stderr } = await run('ip', this.ipArgs(command, args), {
        cwd: repoRoot,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number | string; stdout?: string; stderr?: string };
      if (typeof failed.code !== 'number') throw error;
      return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  }

  /** The arguments of `ip` that run `command` inside. */
  private ipArgs(command: string, args: string[]): string[] {
    return ['netns', 'exec', this.name, command, ...args];
  }

  /** The processes that run inside. */
  async pids(): Promise<number[]> {
    const { stdout } = await run('ip', ['netns', 'pids', this.name]);
    return stdout.split('\n').filter(Boolean).map(Number);
  }

  /** Kills what still runs inside (what the test started there, nothing else) and deletes it. */
  async delete(): Promise<void> {
    for (const pid of await this.pids().catch(() => [])) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    await run('ip', ['netns', 'delete', this.name]);
  }
}
