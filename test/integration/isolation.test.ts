import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSystem } from '../support/system';

const SKILLS_DIR = fileURLToPath(new URL('../fixtures/isolation-skills', import.meta.url));

describe('skill.json isolation: where a code skill runs', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR });
    await system.addWorker();
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
