import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '@skillrun/redis-server';
import { nodeArgsOf } from '../../scripts/node-args.mjs';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const fixtureSkills = fileURLToPath(new URL('../fixtures/skills', import.meta.url));

export interface SpawnOptions {
  prefix?: readonly string[];
  ownGroup?: boolean;
  nodeFlags?: readonly string[];
}

export interface LogLine {
  msg?: string;
  level?: number;
  execution_id?: string;
  trace_id?: string;
  [field: string]: unknown;
}

/**
 * A real gateway or worker process, started the way the README says (`npm run start:gateway`'s
 * command line, on the bundle the tests' global setup built), with its JSON logs kept.
 */
export class ServiceProcess {
  readonly logs: LogLine[] = [];
  stderr = '';
  private readonly exited: Promise<number | null>;

  private constructor(
    readonly child: ChildProcess,
    readonly name: string,
  ) {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) this.logs.push(parseLine(line));
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /**
   * `standalone`: the whole service in one process, as `npm start` runs it. `prefix`: a command
   * that runs node elsewhere (NetworkNamespace's `exec`). `ownGroup`: in a process group of its
   * own, as a terminal's job is, for `interrupt()`. `nodeFlags`: more flags for node (a test's
   * instruments, such as `--trace-gc`), before the start script's own.
   */
  static spawn(
    app: 'gateway' | 'worker' | 'standalone',
    env: Record<string, string>,
    { prefix = [], ownGroup = false, nodeFlags = [] }: SpawnOptions = {},
  ): ServiceProcess {
    const [command = '', ...args] = [
      ...prefix,
      process.execPath,
      ...nodeFlags,
      ...nodeArgsOf(app === 'standalone' ? 'start' : `start:${app}`),
    ];
    const child = spawn(command, args, {
      cwd: repoRoot,
      // Workers' /metrics on any free port: several run at once here.
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', METRICS_PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: ownGroup,
    });
    return new ServiceProcess(child, app);
  }

  /** Resolves with the first log line that matches, or rejects at the deadline or on exit. */
  async waitForLog(match: (line: LogLine) => boolean, timeoutMs = 20_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.logs.find(match);
      if (found) return found;
      if (this.child.exitCode !== null) {
        throw new Error(
          `${this.name} exited (${this.child.exitCode}) before the log line came: ${this.stderr}`,
        );
      }
      if (Date.now() > deadline) throw new Error(`${this.name}: no such log line within ${timeoutMs}ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  exitCode(): Promise<number | null> {
    return this.exited;
  }

  /** A worker's /metrics, on the port its ready line names. */
  metricsUrl(): string {
    const ready = this.logs.find((line) => line.msg === 'worker ready');
    if (!ready) throw new Error(`${this.name} has not said it is ready`);
    return `http://127.0.0.1:${ready.metrics_port}/metrics`;
  }

  /** Ctrl-C in its terminal (SIGINT), or the terminal closed (SIGHUP): to its whole process group (spawned with `ownGroup`). */
  interrupt(signal: 'SIGINT' | 'SIGHUP' = 'SIGINT'): Promise<number | null> {
    const { pid } = this.child;
    if (pid !== undefined && this.child.exitCode === null && this.child.signalCode === null)
      process.kill(-pid, signal);
    return this.exited;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

function parseLine(line: string): LogLine {
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return { msg: line };
  }
}

/** The admin credential every test gateway starts with (ADMIN_API_KEY). */
export const TEST_ADMIN_KEY = 'test-admin-key-0123456789abcdef';
export const ADMIN_HEADERS = { 'x-api-key': TEST_ADMIN_KEY };

/** A worker bundles its skills at start: on two busy cores that can take a while. */
const START_TIMEOUT_MS = 50_000;

export interface StartedGateway {
  url: string;
  process: ServiceProcess;
}

export async function startGateway(env: Record<string, string>): Promise<StartedGateway> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const gateway = ServiceProcess.spawn('gateway', {
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: url,
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    ...env,
  });
  await gateway.waitForLog((line) => line.msg === 'gateway listening', START_TIMEOUT_MS);
  return { url, process: gateway };
}

export async function startWorker(
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
): Promise<ServiceProcess> {
  const worker = ServiceProcess.spawn('worker', { SKILLS_DIR: fixtureSkills, ...env }, { nodeFlags });
  await worker.waitForLog((line) => line.msg === 'worker ready', START_TIMEOUT_MS);
  return worker;
}
