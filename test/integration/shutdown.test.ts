import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LogLine, startGateway, startWorker } from '../support/service-process';
import { TestSystem } from '../support/system';
import { startTestRedis } from '../support/test-redis';

/** Workers that notice a dead one quickly: a lock lapses after 2 s, checked every 0.5 s. */
const QUICK_RECOVERY = { JOB_LOCK_MS: '2000', STALLED_CHECK_INTERVAL_MS: '500' };

describe('shutdown on signals', () => {
  let system: TestSystem;
  let gates: string;
  let gateCount = 0;

  beforeAll(async () => {
    // Attempt lines are logged at debug: these tests watch for an attempt to start.
    system = await TestSystem.start({ LOG_LEVEL: 'debug' });
    gates = await mkdtemp(join(tmpdir(), 'skillrun-gates-'));
  });
  afterAll(async () => {
    await system?.stop();
    if (gates) await rm(gates, { recursive: true, force: true });
  });

  /** A `gated` execution: it runs until the test opens its gate. */
  async function invokeGated(): Promise<{ executionId: string; open: () => Promise<void> }> {
    const gate = join(gates, `gate-${++gateCount}`);
    const accepted = await system.client.invoke('gated', { gate });
    expect(accepted.status).toBe(202);
    return { executionId: String(accepted.body.execution_id), open: () => writeFile(gate, '') };
  }

  const started = (executionId: string) => (line: LogLine) =>
    line.msg === 'attempt started' && line.execution_id === executionId;

  it('gateway: answers the request in flight, refuses new connections, exits 0', async () => {
    await system.addWorker({ WORKER_SKILLS: 'echo' });
    // A generous Redis deadline: on a busy machine the in-flight request must not answer 503.
    const gateway = await startGateway({ ...system.env, SKILL_CACHE_MS: '0', REDIS_TIMEOUT_MS: '5000' });
    const { port } = new URL(gateway.url);
    const body = JSON.stringify({
      caller: { id: 'tester', type: 'service' },
      skill_id: 'echo',
      inputs: { text: 'in flight' },
    });
    // `Expect: 100-continue`: the gateway's "100 Continue" proves it holds the request before the signal.
    const socket = connect(Number(port), '127.0.0.1');
    const answer = collect(socket);
    socket.write(
      `POST /skills/echo/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: keep-alive\r\n\r\n`,
    );
    await answer.until(/^HTTP\/1\.1 100 Continue\r\n\r\n/);

    void gateway.process.stop('SIGTERM');
    await gateway.process.waitForLog((line) => line.msg?.startsWith('stopping') === true);
    await expect(connectOnce(Number(port))).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    socket.write(body);
    const text = await answer.until(/HTTP\/1\.1 202 Accepted[\s\S]*\r\n\r\n[\s\S]*"execution_id"/);
    expect(text).toContain('"status":"accepted"');
    expect(await gateway.process.exitCode()).toBe(0);
  });

  it('worker: lets a running execution finish within the grace period, then exits 0', async () => {
    const worker = await system.addWorker({ WORKER_SKILLS: 'gated' });
    const { executionId, open } = await invokeGated();
    await worker.waitForLog(started(executionId));

    void worker.stop('SIGTERM');
    await worker.waitForLog((line) => line.msg?.startsWith('stopping') === true);
    expect((await system.client.status('gated', executionId)).status).toBe('running');
    await open();

    expect(await worker.exitCode()).toBe(0);
    const final = await system.client.status('gated', executionId);
    expect(final).toMatchObject({ status: 'completed', attempts: 1, output: { attempt: 1 } });
  });

  it('worker: past the grace period, hands the execution back; another worker completes it', async () => {
    const leaving = await system.addWorker({ WORKER_SKILLS: 'gated', SHUTDOWN_GRACE_MS: '300' });
    const { executionId, open } = await invokeGated();
    await leaving.waitForLog(started(executionId));
    const staying = await system.addWorker({ WORKER_SKILLS: 'gated' });

    void leaving.stop('SIGTERM');
    expect(await leaving.exitCode()).toBe(0);
    const handedBack = leaving.logs.find((line) => line.msg?.startsWith('grace period over'));
    expect(handedBack?.execution_ids).toEqual([executionId]);

    await staying.waitForLog(started(executionId));
    await open();
    const { final, seen } = await system.client.waitForEnd('gated', executionId);
    // Handed back, not failed: the record counts both starts, but the interrupted one is not
    // charged to the skill's retries (the skill saw attempt 1 both times).
    expect(final).toMatchObject({
      status: 'completed',
      attempts: 2,
      max_attempts: 1,
      output: { attempt: 1 },
    });
    expect(seen).not.toContain('failed');
    await staying.stop();
  });

  it('worker killed (SIGKILL) mid-execution: another worker picks the execution up once its lock lapses', async () => {
    const doomed = await system.addWorker({ WORKER_SKILLS: 'gated', ...QUICK_RECOVERY });
    const { executionId, open } = await invokeGated();
    await doomed.waitForLog(started(executionId));
    const survivor = await system.addWorker({ WORKER_SKILLS: 'gated', ...QUICK_RECOVERY });

    await doomed.stop('SIGKILL');
    await survivor.waitForLog(started(executionId), 30_000);
    await open();
    const { final } = await system.client.waitForEnd('gated', executionId);
    // The takeover is an attempt of its own in the record, not a retry charged to the skill.
    expect(final).toMatchObject({ status: 'completed', attempts: 2, output: { attempt: 1 } });
    await survivor.stop();
  });

  it('worker: a second signal exits at once; the execution is recovered as after a crash', async () => {
    const impatient = await system.addWorker({ WORKER_SKILLS: 'gated', ...QUICK_RECOVERY });
    const { executionId, open } = await invokeGated();
    await impatient.waitForLog(started(executionId));
    const survivor = await system.addWorker({ WORKER_SKILLS: 'gated', ...QUICK_RECOVERY });

    impatient.child.kill('SIGTERM');
    await impatient.waitForLog((line) => line.msg?.startsWith('stopping') === true);
    impatient.child.kill('SIGINT');
    expect(await impatient.exitCode()).toBe(1);
    expect(impatient.logs.some((line) => line.msg?.startsWith('second signal'))).toBe(true);

    await survivor.waitForLog(started(executionId), 30_000);
    await open();
    expect((await system.client.waitForEnd('gated', executionId)).final.status).toBe('completed');
    await survivor.stop();
  });

  it('worker: exits, past its grace period and a margin, even while Redis is away', async () => {
    const redis = await startTestRedis();
    try {
      const worker = await startWorker({
        REDIS_URL: redis.url,
        WORKER_SKILLS: 'echo',
        SHUTDOWN_GRACE_MS: '200',
      });
      await redis.kill();
      worker.child.kill('SIGTERM');
      expect(await worker.exitCode()).not.toBeNull();
      expect(worker.child.exitCode).toBeLessThanOrEqual(1);
    } finally {
      await redis.stop();
    }
  }, 60_000);

  it('an execution whose workers keep dying is failed, never left running', async () => {
    const first = await system.addWorker({ WORKER_SKILLS: 'gated', ...QUICK_RECOVERY });
    const { executionId } = await invokeGated();
    await first.waitForLog(started(executionId));
    const second = await system.addWorker({ WORKER_SKILLS: 'gated', ...QUICK_RECOVERY });
    await first.stop('SIGKILL');
    await second.waitForLog(started(executionId), 30_000);
    const third = await system.addWorker({ WORKER_SKILLS: 'gated', ...QUICK_RECOVERY });
    await second.stop('SIGKILL');

    // BullMQ gives up a job that stalled more than once without running it again.
    const givenUp = await third.waitForLog((line) => line.execution_id === executionId, 30_000);
    expect(givenUp).toMatchObject({ msg: 'execution given up after its workers stopped', skill_id: 'gated' });
    const final = await system.client.status('gated', executionId);
    expect(final.status).toBe('failed');
    expect(final.error).toMatchObject({ code: 'WORKER_LOST', details: { interruptions: 2 } });
    expect(final.attempts).toBe(2);
    expect(final.error?.message).toMatch(/interrupted 2 times/);
    await third.stop();
  });
});

/** Everything a socket receives, and a wait for it to match. */
function collect(socket: Socket) {
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
  });
  return {
    until: (pattern: RegExp) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(received)) return;
          socket.off('data', check);
          resolve(received);
        };
        socket.on('data', check);
        socket.once('close', () => reject(new Error(`closed without ${pattern}: ${received}`)));
        check();
      }),
  };
}

function connectOnce(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}
