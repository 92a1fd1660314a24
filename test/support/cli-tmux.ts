import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A tmux server of its own (its own socket), for what a person sees in a real terminal. */
export class CliTmux {
  private constructor(private readonly socket: string) {}

  /** Starts `command` (a shell command line) in a detached 120×30 session. */
  static async start(command: string, cwd: string, env: Record<string, string>): Promise<CliTmux> {
    const socket = `skillrun-cli-test-${process.pid}-${Date.now()}`;
    await run(
      'tmux',
      ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-x', '120', '-y', '30', '-c', cwd, command],
      {
        env: { ...process.env, ...env },
      },
    );
    return new CliTmux(socket);
  }

  /** The screen as text. */
  async screen(): Promise<string> {
    const { stdout } = await run('tmux', ['-L', this.socket, 'capture-pane', '-p']);
    return stdout;
  }

  async stop(): Promise<void> {
    await run('tmux', ['-L', this.socket, 'kill-server']).catch(() => undefined);
  }
}
