import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '@skillrun/redis-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/service-process';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// The README's first command and curl session: `npm start` (which builds first), then an
// invocation of an example skill answered through a waiting GET status.

describe('npm start', () => {
  let redis: TestRedis;
  let service: ChildProcess;
  let url: string;
  let output = '';

  beforeAll(async () => {
    redis = await startTestRedis();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    service = spawn('npm', ['start', '--silent'], {
      cwd: repoRoot,
      // Never the private redis-server npm start would otherwise start when 6379 does not answer.
      // METRICS_PORT 0: the worker's /metrics on a free port, not 9464, which another process may hold.
      env: {
        PATH: process.env.PATH ?? '',
        REDIS_URL: redis.url,
        PORT: String(port),
        LOG_LEVEL: 'info',
        METRICS_PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    service.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    service.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const deadline = Date.now() + 90_000;
    while (!/worker ready/.test(output) || !/gateway listening/.test(output)) {
      if (service.exitCode !== null) throw new Error(`npm start exited ${service.exitCode}: ${output}`);
      if (Date.now() > deadline) throw new Error(`npm start was not ready in time: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  afterAll(async () => {
    if (service?.pid !== undefined && service.exitCode === null) {
      const exited = new Promise((resolve) => service.once('exit', resolve));
      // npm runs node under a shell: the signal goes to the whole group, as Ctrl-C would.
      process.kill(-service.pid, 'SIGTERM');
      await exited;
    }
    await redis?.stop();
  });

  it('watches its skills by default (SKILLS_WATCH), as a development server does', () => {
    const ready = output.split('\n').find((text) => text.includes('"worker ready"')) ?? '{}';
    expect(JSON.parse(ready)).toMatchObject({ skills_watch: true });
  });

  it('says where to open the console and the API docs, and both answer there', async () => {
    await expect.poll(() => output.includes('open the console at')).toBe(true);
    const line = output.split('\n').find((text) => text.includes('open the console at')) ?? '{}';
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
});
