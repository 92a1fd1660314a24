import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Every child still running, so that an error or Ctrl-C never leaves one behind. */
const running = new Set<Child>();

/** Node flags each child gets before its own, by its name (BENCH_PROFILE's `--cpu-prof`). */
let flagsOf: (name: string) => string[] = () => [];

/** Every child spawned from now on gets `flags(name)` first. */
export function flagChildren(flags: (name: string) => string[]): void {
  flagsOf = flags;
}

/** What a child said on its log pipe that a reader of the results should know about. */
export interface LogSummary {
  warnings: number;
  errors: number;
  /** The last few warning or error lines, as printed. */
  last: string[];
}

/**
 * A Node process running a bundled entry point (`.mjs`, see bench/main.mts: every process is
 * measured as production runs it, without a loader). Its stdout (JSON log lines) goes to a
 * pipe that is drained as it comes: only warnings and errors are counted (as a log collector
 * would see them), and the first line matching `ready` is kept. Nothing reaches the console.
 */
export class Child {
  readonly summary: LogSummary = { warnings: 0, errors: 0, last: [] };
  stderr = '';
  /** Messages waited for, and the first JSON line that carried each. */
  private readonly watched = new Map<RegExp, Record<string, unknown> | undefined>();
  private partial = '';
  private readonly exited: Promise<number | null>;

  private constructor(
    readonly name: string,
    readonly process: ChildProcess,
  ) {
    running.add(this);
    process.stdout?.on('data', (chunk: Buffer) => this.read(chunk.toString()));
    process.stderr?.on('data', (chunk: Buffer) => {
      // Bounded: a crash loop must not grow the bench's memory.
      this.stderr = (this.stderr + chunk.toString()).slice(-4000);
    });
    this.exited = new Promise((resolve) =>
      process.once('exit', (code) => {
        running.delete(this);
        resolve(code);
      }),
    );
  }

  /** `args` are Node's: flags, then the entry point. */
  static spawn(name: string, args: string[], env: Record<string, string>): Child {
    const child = spawn(process.execPath, [...flagsOf(name), ...args], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new Child(name, child);
  }

  get pid(): number {
    const { pid } = this.process;
    if (pid === undefined) throw new Error(`${this.name} has no pid`);
    return pid;
  }

  get alive(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** Resolves with the first JSON log line whose `msg` matches, or rejects on exit or at the deadline. */
  async ready(msg: RegExp, timeoutMs = 60_000): Promise<Record<string, unknown>> {
    this.watch(msg);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.watched.get(msg);
      if (found) return found;
      if (!this.alive)
        throw new Error(`${this.name} exited before it was ready: ${this.stderr.slice(-1500)}`);
      if (Date.now() > deadline) throw new Error(`${this.name} was not ready within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Keeps the first JSON line whose `msg` matches from now on; `seen` returns it. */
  watch(msg: RegExp): void {
    if (!this.watched.has(msg)) this.watched.set(msg, undefined);
  }

  seen(msg: RegExp): Record<string, unknown> | undefined {
    return this.watched.get(msg);
  }

  exitCode(): Promise<number | null> {
    return this.exited;
  }

  /** SIGTERM, then SIGKILL if the process is still there after `graceMs`. */
  async stop(graceMs = 15_000): Promise<number | null> {
    if (this.alive) this.process.kill('SIGTERM');
    const timer = setTimeout(() => this.kill(), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }

  kill(): void {
    if (this.alive) this.process.kill('SIGKILL');
  }

  private read(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      // pino levels: 40 warn, 50 error, 60 fatal. A substring test keeps the drain cheap: the
      // bench shares two cores with what it measures.
      const level = /^\{"level":(\d+)/.exec(line)?.[1];
      if (level && Number(level) >= 40) {
        if (Number(level) >= 50) this.summary.errors++;
        else this.summary.warnings++;
        this.summary.last.push(line.slice(0, 400));
        if (this.summary.last.length > 5) this.summary.last.shift();
      }
      for (const [msg, found] of this.watched) {
        if (found || !msg.test(line)) continue;
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          if (typeof parsed.msg === 'string' && msg.test(parsed.msg)) this.watched.set(msg, parsed);
        } catch {}
      }
    }
  }
}

/** Stops every child still running (SIGTERM, then SIGKILL); for the end of the run and for errors. */
export async function stopAllChildren(graceMs = 5000): Promise<void> {
  await Promise.all([...running].map((child) => child.stop(graceMs)));
}

/** Last resort on exit: synchronous, so it also runs when the bench dies. */
export function killAllChildren(): void {
  for (const child of running) child.kill();
}
