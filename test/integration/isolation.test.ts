import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

/** VmHWM (peak RSS) of a process, in MB. */
function peakRssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

const SKILLS_DIR = fileURLToPath(new URL('../fixtures/isolation-skills', import.meta.url));

const THREAD_MEMORY_MB = 128;

describe('skill.json isolation: where a code skill runs', () => {
  let system: TestSystem;
  let worker: ServiceProcess;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR });
    worker = await system.addWorker({ SANDBOX_THREAD_MEMORY_MB: String(THREAD_MEMORY_MB) });
  });
  afterAll(() => system?.stop());

  it('runs an in-process skill on the worker thread, and a thread skill (the default) in a sandbox thread', async () => {
    const [inProcess, threaded] = await Promise.all([
      system.client.run('in_process_probe', {}),
      system.client.run('thread_probe', {}),
    ]);
    expect(inProcess.final).toMatchObject({ status: 'completed', output: { main_thread: true } });
    expect(threaded.final).toMatchObject({ status: 'completed', output: { main_thread: false } });
  });

  it('fails a thread skill that tries to end the worker (kill, abort) alone, not retried; the worker goes on', async () => {
    const slow = await system.client.invoke('thread_probe', { ms: 1500 });
    for (const how of ['kill', 'abort']) {
      const { final } = await system.client.run('process_killer', { how });
      expect(final.status, how).toBe('failed');
      expect(final.error, how).toMatchObject({ code: 'ACCESS_DENIED', recoverable: false });
      expect(final.error?.message, how).toMatch(/not allowed in a skill/);
      expect(final.attempts, how).toBe(1);
    }
    // An execution sharing the threads meanwhile, and one after, complete.
    const during = await system.client.waitForEnd('thread_probe', String(slow.body.execution_id));
    expect(during.final.status).toBe('completed');
    expect((await system.client.run('thread_probe', {})).final.status).toBe('completed');
  });

  it('ends only its thread when a skill calls process.exit: it fails after its retries, the worker goes on', async () => {
    const { final } = await system.client.run('process_killer', { how: 'exit' });
    expect(final.status).toBe('failed');
    expect(final.error).toMatchObject({ code: 'TOOL_EXECUTION_FAILED', recoverable: true });
    expect(final.attempts).toBe(2);
    expect((await system.client.run('thread_probe', {})).final.status).toBe('completed');
  });

  it('stops a skill that allocates without bound at its thread heap limit; the worker stays small and goes on', async () => {
    const { final } = await system.client.run('memory_hog', {});
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('TOOL_EXECUTION_FAILED');
    // Two threads at most at their limit, plus the worker itself: nowhere near gigabytes.
    expect(peakRssMb(worker.child.pid)).toBeLessThan(2 * THREAD_MEMORY_MB + 400);
    expect((await system.client.run('thread_probe', {})).final.status).toBe('completed');
  });

  it('holds a skill to the memory it declares (memory_mb), buffers outside the heap included', async () => {
    const { final } = await system.client.run('buffer_hog', {});
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('TOOL_EXECUTION_FAILED');
    // Its own 64 MB, not the worker's default of 128.
    expect(final.error?.message).toMatch(/over its memory limit \(\d+ MB of buffers, 64 MB allowed\)/);
    expect(peakRssMb(worker.child.pid)).toBeLessThan(2 * THREAD_MEMORY_MB + 400);
    expect((await system.client.run('thread_probe', {})).final.status).toBe('completed');
  });

  it('holds an in-process skill to its deadline: its signal aborts and the execution times out', async () => {
    const { final } = await system.client.run(
      'in_process_probe',
      { ms: 10_000 },
      { context: { timeout_ms: 300 } },
    );
    expect(final.status).toBe('timeout');
    expect(final.error?.code).toBe('EXECUTION_TIMEOUT');
    // The worker is still serving: its thread was not stuck.
    const after = await system.client.run('in_process_probe', {});
    expect(after.final.status).toBe('completed');
  });
});
