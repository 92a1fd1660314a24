import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeyStore, RedisKeys } from '@skillrun/core/data';
import { freePort } from '@skillrun/redis-server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsOf } from '../../scripts/node-args.mjs';
import { runSkillrun } from '../support/cli-process';
import { type LogLine, repoRoot } from '../support/service-process';
import { startTestRedis, type TestRedis } from '../support/test-redis';

const KEY = /^srk_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$/;

/** `npm start`'s command (on the bundle the global setup built), its JSON log lines kept. */
class Standalone {
  readonly lines: LogLine[] = [];
  private readonly child: ChildProcess;

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, nodeArgsOf('start'), {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', METRICS_PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buffered = '';
    this.child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) this.lines.push(parsed(line));
    });
  }

  async line(match: (line: LogLine) => boolean, timeoutMs = 90_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(match);
      if (found) return found;
      if (this.child.exitCode !== null) throw new Error(`npm start exited ${this.child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`no such line: ${JSON.stringify(this.lines)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}

function parsed(line: string): LogLine {
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return { msg: line };
  }
}

const keyLine = (line: LogLine) => typeof line.msg === 'string' && line.msg.includes('local admin key');

/**
 * The README's path to a first credential: `npm start` makes a local admin key and says where it
 * is; `skillrun keys` finds the Redis of the running `npm start` without REDIS_URL. The data folder
 * is a temporary one (SKILLRUN_DATA_DIR), and Redis the test's own (npm start uses REDIS_URL as
 * given and never probes 6379 then).
 */
describe('npm start: a local admin key, and the keys command finds its Redis', () => {
  let redis: TestRedis;
  let dataDir: string;
  let env: Record<string, string>;
  let running: Standalone | undefined;

  beforeAll(async () => {
    redis = await startTestRedis();
    dataDir = await mkdtemp(join(tmpdir(), 'skillrun-standalone-data-'));
    env = { REDIS_URL: redis.url, PORT: String(await freePort()), SKILLRUN_DATA_DIR: dataDir };
  });
  afterAll(async () => {
    await running?.stop();
    await redis?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('makes the key once, keeps it 0600 in its data folder (its hash in Redis), says where, and reuses it', async () => {
    running = new Standalone(env);
    const announced = await running.line(keyLine);
    const file = join(dataDir, 'admin-key');
    expect(announced).toMatchObject({ file, created: true, caller_id: 'local-admin' });
    expect(announced.msg).toContain(file);
    const key = (await readFile(file, 'utf8')).trim();
    const [, id] = KEY.exec(key) ?? [];
    expect(announced.key_id).toBe(id);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // The secret is in no log line, and Redis holds its hash only.
    expect(JSON.stringify(running.lines)).not.toContain(key);
    const connection = new Redis(redis.url);
    const keys = new RedisKeys('{skillrun}');
    try {
      const stored = await connection.hgetall(keys.callers.apiKey(id ?? ''));
      expect(stored.caller_id).toBe('local-admin');
      expect(JSON.stringify(stored)).not.toContain(key.slice(21));
      expect(await new ApiKeyStore(connection, keys).verify(key)).toMatchObject({
        callerId: 'local-admin',
        scopes: expect.arrayContaining(['admin', 'skill:invoke']),
      });
    } finally {
      await connection.quit();
    }

    await running.stop();
    running = new Standalone(env);
    expect(await running.line(keyLine)).toMatchObject({ key_id: id, created: false });
    expect((await readFile(file, 'utf8')).trim()).toBe(key);
  });

  it('lets `skillrun keys` find the Redis of the running npm start without REDIS_URL', async () => {
    await running?.line(keyLine);
    const cli = { SKILLRUN_DATA_DIR: dataDir };
    const created = await runSkillrun(['keys', 'create', '--caller', 'ada', '--scopes', 'skill:invoke'], {
      env: cli,
    });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain('keys: using the Redis of npm start');
    const listed = await runSkillrun(['keys', 'list'], { env: cli });
    expect(listed.code, listed.stderr).toBe(0);
    const callers = listed.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { caller_id: string }).caller_id);
    expect(callers).toEqual(expect.arrayContaining(['local-admin', 'ada']));

    // Stopped, it no longer says where its Redis is.
    await running?.stop();
    await expect(stat(join(dataDir, 'redis-url'))).rejects.toThrow(/ENOENT/);
  });
});
