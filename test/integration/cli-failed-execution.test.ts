import { freePort } from '@skillrun/redis-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runSkillrun } from '../support/cli-process';
import { CliTmux } from '../support/cli-tmux';
import { fixtureSkills, repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

const expectCode = (run: CliRun, code: number) =>
  expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(code);

/** What `skillrun` says when an execution fails, and when the service answers but cannot serve. */
describe('skillrun on a failed execution and an unavailable service', () => {
  let system: TestSystem;
  let env: Record<string, string>;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ SKILLS_DIR: fixtureSkills });
    env = { SKILLRUN_URL: system.gateway.url, SKILLRUN_CALLER: 'cli-tester' };
  });
  afterAll(() => system?.stop());

  it("prints the error's details: the failing /output path, after invoke --wait and by result", async () => {
    const run = await runSkillrun(['invoke', 'bad_output', '--wait'], { env });
    expectCode(run, 1);
    expect(run.stderr).toContain("failed: INVALID_OUTPUT: The skill's output does not match");
    expect(run.stderr).toMatch(/^ {2}\/output\/n: must be integer/m);

    const id = JSON.parse((await runSkillrun(['invoke', 'bad_output', '--json'], { env })).stdout)
      .execution_id as string;
    await system.client.waitForEnd('bad_output', id);
    const result = await runSkillrun(['result', 'bad_output', id], { env });
    expectCode(result, 1);
    expect(result.stderr).toMatch(/^ {2}\/output\/n: must be integer/m);
    const status = await runSkillrun(['status', 'bad_output', id], { env });
    expectCode(status, 0);
    expect(status.stdout).toMatch(/^ +\/output\/n: must be integer/m);
  });

  // In a real terminal (tmux): the live view's bar belongs to a running execution, not to its error.
  it('drops the progress bar in a terminal when the execution fails, leaving the error and its details', async () => {
    const tmux = await CliTmux.start(
      `node ${repoRoot}apps/cli/bin/skillrun.mjs invoke bad_output --wait; echo "exit=$?"; sleep 300`,
      repoRoot,
      env,
    );
    try {
      await expect.poll(() => tmux.screen(), { timeout: 30_000 }).toContain('exit=1');
      const screen = await tmux.screen();
      expect(screen).toContain('failed: INVALID_OUTPUT');
      expect(screen).toContain('/output/n: must be integer');
      expect(screen).not.toMatch(/[█░]/);
    } finally {
      await tmux.stop();
    }
  });

  it('asks whether the service runs only when nothing answered, not after its 503', async () => {
    const port = await freePort();
    const away = await runSkillrun(['skills', '--url', `http://127.0.0.1:${port}`], { env });
    expectCode(away, 5);
    expect(away.stderr).toContain(`Is the service running at http://127.0.0.1:${port}?`);

    // Last in this file: the gateway answers, but its Redis is gone.
    await system.redis.kill();
    const unavailable = await runSkillrun(['skills'], { env });
    expectCode(unavailable, 5);
    expect(unavailable.stderr).toContain('SERVICE_UNAVAILABLE');
    expect(unavailable.stderr).toContain('Retry with exponential backoff');
    expect(unavailable.stderr).not.toContain('Is the service running');
  });
});
