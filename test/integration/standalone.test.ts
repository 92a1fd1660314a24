import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@skillrun/redis-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/service-process';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// The README's first command and curl session: `npm start` (which builds first), then an
// invocation of an example skill answered through a waiting GET status.

/** `npm start`, its output (standard output and error) kept as it comes. */
class NpmStart {
  readonly child: ChildProcess;
  output = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(env: Record<string, string>) {
    this.child = spawn('npm', ['start', '--silent'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
      this.stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  async ready(): Promise<void> {
    const deadline = Date.now() + 90_000;
    while (!/worker ready/.test(this.output) || !/gateway listening/.test(this.output)) {
      if (this.child.exitCode !== null)
        throw new Error(`npm start exited ${this.child.exitCode}: ${this.output}`);
      if (Date.now() > deadline) throw new Error(`npm start was not ready in time: ${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<void> {
    const { pid } = this.child;
    if (pid === undefined || this.child.exitCode !== null) return;
    // npm runs node under a shell: the signal goes to the whole group, as Ctrl-C would.
    process.kill(-pid, 'SIGTERM');
    await this.exited;
  }
}

describe('npm start', () => {
  let redis: TestRedis;
  let service: NpmStart;
  let port: number;
  let url: string;
  let dataDir: string;
  /** Never the private redis-server npm start would otherwise start when 6379 does not answer; its data folder (the local admin key) a temporary one, not the repository's .data. */
  const env = (port: number) => ({ REDIS_URL: redis.url, PORT: String(port), SKILLRUN_DATA_DIR: dataDir });

  beforeAll(async () => {
    redis = await startTestRedis();
    dataDir = await mkdtemp(join(tmpdir(), 'skillrun-npm-start-'));
    port = await freePort();
    url = `http://127.0.0.1:${port}`;
    service = new NpmStart(env(port));
    await service.ready();
  });

  afterAll(async () => {
    await service?.stop();
    await redis?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('watches its skills by default (SKILLS_WATCH), as a development server does', () => {
    const ready = service.output.split('\n').find((text) => text.includes('"worker ready"')) ?? '{}';
    expect(JSON.parse(ready)).toMatchObject({ skills_watch: true });
  });

  it('says where to open the console and the API docs, and both answer there', async () => {
    await expect.poll(() => service.output.includes('open the console at')).toBe(true);
    const line = service.output.split('\n').find((text) => text.includes('open the console at')) ?? '{}';
    const { console_url, docs_url } = JSON.parse(line) as { console_url: string; docs_url: string };
    // PUBLIC_BASE_URL's default names localhost; the test reaches the same port at 127.0.0.1.
    expect(console_url).toBe(`${url.replace('127.0.0.1', 'localhost')}/console/`);
    expect(docs_url).toBe(`${url.replace('127.0.0.1', 'localhost')}/docs`);
    expect((await fetch(`${url}/console/`)).status).toBe(200);
    expect((await fetch(`${url}/docs`, { redirect: 'follow' })).status).toBe(200);
  });

  it('runs the README session: invoke text_stats, then one waiting GET status answers completed', async () => {
    const accepted = await fetch(`${url}/skills/text_stats/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        caller: { id: 'me', type: 'user' },
        skill_id: 'text_stats',
        inputs: { text: 'One fish. Two fish!' },
      }),
    });
    expect(accepted.status).toBe(202);
    const { execution_id } = (await accepted.json()) as { execution_id: string };
    const status = await fetch(`${url}/skills/text_stats/status/${execution_id}`, {
      headers: { prefer: 'wait=20' },
    });
    const body = (await status.json()) as { status: string; output?: { words?: number; sentences?: number } };
    expect(body.status).toBe('completed');
    expect(body.output).toMatchObject({ words: 4, sentences: 2 });
  });

  it('runs a second time beside the first with only PORT changed: no other port to choose', async () => {
    const otherPort = await freePort();
    const other = new NpmStart(env(otherPort));
    try {
      await other.ready();
      expect((await fetch(`http://127.0.0.1:${otherPort}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      await other.stop();
    }
  });

  it('stops at a PORT in use with one line naming PORT, and exits non-zero', async () => {
    const clash = new NpmStart(env(port));
    try {
      expect(await clash.exited).not.toBe(0);
    } finally {
      await clash.stop();
    }
    expect(clash.stderr.trim()).toBe(`port ${port} is in use: set PORT to another port`);
  });
});
