/**
 * What ACK_REPLICAS costs, measured (docs/reliability.md): the latency of `POST invoke` answered
 * 202 with ACK_REPLICAS=0 and =1, against one master and one replica on this machine (loopback, so
 * the replica's round trip is the least it can be), the throughput of 16 callers at once, and what a
 * WAIT adds to a write's round trip on a connection of its own.
 *
 *   npm run build && node --import tsx scripts/ack-latency.mts [invocations]
 *
 * Prints a Markdown table. Not a test: the figures depend on the machine and what else runs on it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRedisServer, freePort, RedisServerProcess } from '@skillrun/redis-server';
import { Redis } from 'ioredis';
import { nodeArgsOf } from './node-args.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const INVOCATIONS = Number(process.argv[2] ?? 2000);
const CALLERS = 16;
const ADMIN_KEY = 'ack-latency-admin-key-0123456789';

const dir = await mkdtemp(join(tmpdir(), 'skillrun-ack-latency-'));
const master = await RedisServerProcess.start();
const replica = await startReplica(master.port, dir);
const children: ChildProcess[] = [replica];
try {
  const worker = await startApp('worker', {
    REDIS_URL: master.url,
    SKILLS_DIR: join(root, 'test/fixtures/skills'),
    WORKER_SKILLS: 'echo',
    WORKER_CONCURRENCY: '32',
    METRICS_PORT: '0',
  });
  children.push(worker);
  const rows: string[] = [];
  for (const replicas of [0, 1]) {
    const port = await freePort();
    const gateway = await startApp('gateway', {
      REDIS_URL: master.url,
      PORT: String(port),
      ADMIN_API_KEY: ADMIN_KEY,
      ACK_REPLICAS: String(replicas),
    });
    children.push(gateway);
    const url = `http://127.0.0.1:${port}/skills/echo/invoke`;
    await sequential(url, 200);
    const times = await sequential(url, INVOCATIONS);
    const started = performance.now();
    await concurrent(url, INVOCATIONS, CALLERS);
    const perSecond = INVOCATIONS / ((performance.now() - started) / 1000);
    rows.push(
      `| ${replicas} | ${quantile(times, 0.5).toFixed(2)} | ${quantile(times, 0.99).toFixed(2)} | ${Math.round(perSecond)} |`,
    );
    gateway.kill();
  }
  // The part WAIT itself adds, apart from the service: a write's round trip alone, and followed by
  // WAIT 1 on the same connection.
  const direct = new Redis(master.url);
  const alone: number[] = [];
  const waited: number[] = [];
  for (let index = 0; index < INVOCATIONS; index++) {
    let begun = performance.now();
    await direct.set('ack-latency', index);
    alone.push(performance.now() - begun);
    begun = performance.now();
    await direct.set('ack-latency', index);
    await direct.wait(1, 500);
    waited.push(performance.now() - begun);
  }
  direct.disconnect();
  rows.push(
    `| (Redis alone: SET) | ${quantile(alone, 0.5).toFixed(2)} | ${quantile(alone, 0.99).toFixed(2)} | |`,
    `| (Redis alone: SET, then WAIT 1) | ${quantile(waited, 0.5).toFixed(2)} | ${quantile(waited, 0.99).toFixed(2)} | |`,
  );
  console.log(
    `${INVOCATIONS} invocations each; 202 latency of one caller at a time, then ${CALLERS} callers at once\n`,
  );
  console.log('| ACK_REPLICAS | p50 (ms) | p99 (ms) | 202/s, 16 callers |');
  console.log('| --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
} finally {
  for (const child of children) child.kill('SIGKILL');
  await master.stop();
  await rm(dir, { recursive: true, force: true });
}

/** One invocation after another; each one's time to its 202, in ms. */
async function sequential(url: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let sent = 0; sent < count; sent++) {
    const begun = performance.now();
    await invoke(url, sent);
    times.push(performance.now() - begun);
  }
  return times;
}

async function concurrent(url: string, count: number, callers: number): Promise<void> {
  let next = 0;
  const caller = async () => {
    for (let index = next++; index < count; index = next++) await invoke(url, index);
  };
  await Promise.all(Array.from({ length: callers }, caller));
}

async function invoke(url: string, index: number): Promise<void> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      skill_id: 'echo',
      caller: { id: 'bench', type: 'service' },
      inputs: { text: `n${index}` },
    }),
  });
  if (answer.status === 202) await answer.arrayBuffer();
  else if (answer.status !== 202) throw new Error(`invoke answered ${answer.status}: ${await answer.text()}`);
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function startApp(app: 'gateway' | 'worker', env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, nodeArgsOf(`start:${app}`), {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // A gateway is ready once it serves the echo skill (which the worker advertises).
  const ready =
    app === 'gateway'
      ? async () =>
          (await fetch(`http://127.0.0.1:${env.PORT}/skills/echo`).catch(() => undefined))?.status === 200
      : async () => true;
  const deadline = Date.now() + 60_000;
  while (!(await ready())) {
    if (child.exitCode !== null) throw new Error(`${app} exited (${child.exitCode})`);
    if (Date.now() > deadline) throw new Error(`${app} not ready in 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return child;
}

async function startReplica(masterPort: number, folder: string): Promise<ChildProcess> {
  const port = await freePort();
  const child = spawn(
    findRedisServer() ?? 'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      folder,
      '--save',
      '',
      '--replicaof',
      '127.0.0.1',
      String(masterPort),
    ],
    { stdio: 'ignore' },
  );
  const asked = new Redis(port, '127.0.0.1', { retryStrategy: () => 100 });
  asked.on('error', () => {});
  while (!(await asked.info('replication').catch(() => '')).includes('master_link_status:up'))
    await new Promise((resolve) => setTimeout(resolve, 100));
  asked.disconnect();
  return child;
}
