import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

/** A field of /proc/<pid>/status in MB: VmRSS (resident now) or VmHWM (the peak so far). */
function statusMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
}

const SKILLS_DIR = fileURLToPath(new URL('../fixtures/isolation-skills', import.meta.url));

/** off_heap_flood's memory_mb. */
const LIMIT_MB = 256;
/**
 * Above the worker's resident memory before, besides the limit: what running the skill costs
 * outside its buffers (its thread's heap while it runs, its module, the job's bookkeeping). A
 * block is 64 MB: a bound checked after the fact lets several through before it acts, and a
 * flood that nothing stops holds 1024 MB.
 */
const MARGIN_MB = 128;

const WAYS = [
  'Buffer.alloc',
  'Buffer.allocUnsafe',
  'typed array',
  'ArrayBuffer',
  'SharedArrayBuffer',
  'WebAssembly.Memory',
];

describe('a skill holding memory outside the heap, bounded as it allocates', () => {
  let system: TestSystem;
  let worker: ServiceProcess;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR });
    // One thread per pool: every flood runs on the same thread, after the one before it.
    worker = await system.addWorker({ SANDBOX_THREADS: '1' });
  });
  afterAll(() => system?.stop());

  it('fails a skill at its memory limit whichever way it allocates, the worker never far past it, and serves on', async () => {
    expect((await system.client.run('thread_probe', {})).final.status).toBe('completed');
    const baselineMb = statusMb(worker.child.pid, 'VmRSS');
    for (const how of WAYS) {
      const { final } = await system.client.run('off_heap_flood', { how });
      expect(final.status, how).toBe('failed');
      expect(final.error?.code, how).toBe('TOOL_EXECUTION_FAILED');
      expect(final.error?.message, how).toMatch(
        /over its memory limit \(\d+ MB of buffers, 256 MB allowed\)/,
      );
      expect(statusMb(worker.child.pid, 'VmHWM'), how).toBeLessThan(baselineMb + LIMIT_MB + MARGIN_MB);
    }
    // The floods' blocks, dropped, do not count against the next skill on their thread.
    const within = await system.client.run('off_heap_flood', { how: 'Buffer.alloc', max_mb: 192 });
    expect(within.final).toMatchObject({ status: 'completed', output: { held_mb: 192 } });
    expect((await system.client.run('thread_probe', {})).final.status).toBe('completed');
  });
});
