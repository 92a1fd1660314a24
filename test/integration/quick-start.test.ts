import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKILLRUN_BIN } from '../support/cli-process';
import { NetworkNamespace } from '../support/network-namespace';
import { type LogLine, repoRoot, ServiceProcess } from '../support/service-process';

// The README's quick start as a newcomer's machine runs it: nothing answers on 127.0.0.1:6379,
// 3000 or 9464 (a network namespace of the test's own, so this machine's Redis is out of reach),
// nothing set but the data folder (a temporary one, not the repository's .data). `npm start` starts
// a private redis-server and makes a local admin key; the command line and the first execution
// reach it at the defaults (http://localhost:3000); Ctrl-C stops it all; the next start finds the
// key and the executions again. Where a namespace cannot be made (not root, no `ip netns`), skipped.

const KEY = /^srk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/;
const keyLine = (line: LogLine) => String(line.msg).startsWith('the local admin key');
/** `npm start` ready: its gateway, worker and key. */
const START_TIMEOUT_MS = 50_000;

describe.skipIf(!NetworkNamespace.available())(
  'the quick start, where nothing answers on 6379 or 3000',
  () => {
    let namespace: NetworkNamespace;
    let dataDir: string;
    let service: ServiceProcess | undefined;
    let executionId: string;

    const npmStart = async (): Promise<ServiceProcess> => {
      service = ServiceProcess.spawn(
        'standalone',
        { SKILLRUN_DATA_DIR: dataDir },
        { prefix: namespace.exec, ownGroup: true },
      );
      await service.waitForLog(keyLine, START_TIMEOUT_MS);
      return service;
    };
    const skillrun = (args: string[], env: Record<string, string> = {}) =>
      namespace.run(process.execPath, [SKILLRUN_BIN, ...args], { SKILLRUN_DATA_DIR: dataDir, ...env });
    const adminKey = async () => (await readFile(join(dataDir, 'admin-key'), 'utf8')).trim();

    beforeAll(async () => {
      namespace = await NetworkNamespace.create();
      dataDir = await mkdtemp(join(tmpdir(), 'skillrun-quick-start-'));
    });

    afterAll(async () => {
      await service?.stop();
      await namespace?.delete();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('npm start: a private Redis, the gateway on localhost:3000, and a local admin key', async () => {
      const started = await npmStart();
      expect(started.logs.find((line) => line.msg === 'gateway listening')).toMatchObject({
        port: 3000,
        base_url: 'http://localhost:3000',
      });
      expect(started.logs.some((line) => String(line.msg).startsWith('started a private redis-server'))).toBe(
        true,
      );
      expect(await adminKey()).toMatch(KEY);
      expect((await stat(join(dataDir, 'admin-key'))).mode & 0o777).toBe(0o600);
    });

    it('the admin key lists executions, and makes a key for someone else', async () => {
      const env = { SKILLRUN_API_KEY: await adminKey() };
      const listed = await skillrun(['executions'], env);
      expect(listed).toEqual({ code: 0, stdout: '', stderr: 'No executions.\n' });
      const created = await skillrun(
        ['keys', 'create', '--caller', 'ada', '--scopes', 'skill:invoke,skill:read'],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      // The key on stdout (shown this once); on stderr, which Redis, then the key's record.
      expect(created.stdout.trim()).toMatch(KEY);
      const [using, record] = created.stderr.trim().split('\n');
      expect(using).toMatch(/^keys: using the Redis of npm start at 127\.0\.0\.1:\d+ /);
      expect(JSON.parse(record ?? '{}')).toMatchObject({
        caller_id: 'ada',
        scopes: ['skill:invoke', 'skill:read'],
      });
    });

    it('a first execution over HTTP, which the admin then lists', async () => {
      const ran = await namespace.run('sh', ['examples/shell/first-execution-curl.sh']);
      expect(ran.code, ran.stderr).toBe(0);
      const [accepted, ended] = ran.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(ended).toMatchObject({ execution_id: accepted.execution_id, status: 'completed' });
      executionId = accepted.execution_id;
      const listed = await skillrun(['executions'], { SKILLRUN_API_KEY: await adminKey() });
      expect(listed.stdout).toMatch(new RegExp(`^${executionId}\\s+text_stats 1\\.0\\.0\\s+completed`, 'm'));
    });

    it("a first execution with the command line, printing the README's lines", async () => {
      const ran = await namespace.run('sh', ['examples/shell/first-execution-cli.sh']);
      expect(ran.code, ran.stderr).toBe(0);
      const printed = ran.stdout.split('\n');
      // Each line the README shows, up to the output's JSON (abridged there), in the same order.
      let from = 0;
      for (const line of await readmeCliLines()) {
        const at = printed.indexOf(line, from);
        expect(at, `${line}\nnot in, in order:\n${ran.stdout}`).toBeGreaterThanOrEqual(0);
        from = at + 1;
      }
    });

    it('stops on Ctrl-C, its private Redis with it, in good order', async () => {
      expect(await service?.interrupt()).toBe(0);
      expect(service?.logs.filter((line) => (line.level ?? 0) >= 50)).toEqual([]);
      // Nothing left running, and no word of a Redis that has gone.
      expect(await namespace.pids()).toEqual([]);
      await expect(stat(join(dataDir, 'redis-url'))).rejects.toThrow(/ENOENT/);
    });

    it('starts again with the same key and the executions kept; closing its terminal stops it all', async () => {
      const key = await adminKey();
      const again = await npmStart();
      expect(again.logs.find(keyLine)).toMatchObject({ created: false });
      expect(await adminKey()).toBe(key);
      const listed = await skillrun(['executions'], { SKILLRUN_API_KEY: key });
      expect(listed.stdout).toContain(executionId);
      // Closed by its terminal this time (the hang-up goes to the terminal's whole process group).
      expect(await again.interrupt('SIGHUP')).toBe(0);
      expect(await namespace.pids()).toEqual([]);
      await expect(stat(join(dataDir, 'redis-url'))).rejects.toThrow(/ENOENT/);
    });
  },
);

/** The lines of the README's "It prints (abridged)" after the command line's first execution, up to its JSON. */
async function readmeCliLines(): Promise<string[]> {
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  const [, block = ''] = /It prints \(abridged\):\n\n```text\n([^`]*)```/.exec(readme) ?? [];
  const lines = block.split('\n');
  return lines.slice(0, lines.indexOf('{')).filter((line) => line !== '…');
}
