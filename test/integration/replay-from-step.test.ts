import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BulkReplayResult, Execution, InvocationAccepted } from '@skillrun/core';
import { RedisKeys } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSkillrun } from '../support/cli-process';
import type { Client } from '../support/client';
import { CONSOLE_HOST, ConsoleTab, launchChromium } from '../support/console-browser';
import { ADMIN_HEADERS, fixtureSkills, TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

const fixtures = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
type Refusal = { error?: { code: string; message: string; details?: unknown } };

describe('replay from a step: a composite rerun from its failed step or a chosen one', () => {
  let system: TestSystem;
  let client: Client;
  let redis: Redis;
  let browser: Browser | undefined;
  const dependency = join(tmpdir(), `skillrun-rerun-${process.pid}`);

  const replay = (skill: string, id: string, body?: unknown) =>
    client.request<InvocationAccepted & Refusal>(`/skills/${skill}/replay/${id}`, {
      method: 'POST',
      ...(body === undefined ? {} : { json: body }),
    });
  // As an admin: a bulk replay's executions are its caller's (the admin's).
  const endOf = async (skill: string, id: string) =>
    (await client.waitForEnd(skill, id, undefined, ADMIN_HEADERS)).final;
  const stepOf = (execution: Execution, step: string) =>
    execution.steps?.filter((each) => each.step === step).at(-1);

  /** A run of rerun_pipeline that failed at `second` (its file was not there). */
  const failedRun = async (text: string) => {
    const { final } = await client.run('rerun_pipeline', { text, path: dependency });
    expect(final.status).toBe('failed');
    expect(final.error).toMatchObject({ code: 'STEP_FAILED', details: { step: 'second' } });
    return final;
  };

  beforeAll(async () => {
    await rm(dependency, { force: true });
    system = await TestSystem.start({ SKILL_CACHE_MS: '0' });
    await system.addWorker({
      SKILLS_DIR: [fixtureSkills, fixtures('replay-skills'), fixtures('rerun-skills')].join(delimiter),
      WORKER_CONCURRENCY: '8',
    });
    client = system.client;
    redis = new Redis(system.redis.url);
  });
  afterAll(async () => {
    await rm(dependency, { force: true });
    await browser?.close();
    redis?.disconnect();
    await system?.stop();
  });

  it('reruns a failed composite from the step it failed at, reusing the steps before it', async () => {
    const original = await failedRun('hi');
    await writeFile(dependency, '');
    try {
      const answer = await replay('rerun_pipeline', original.execution_id);
      expect(answer.status, JSON.stringify(answer.body)).toBe(202);
      const forkedFrom = { execution_id: original.execution_id, step: 'second' };
      expect(answer.body).toMatchObject({ replay_of: original.execution_id, forked_from: forkedFrom });
      const rerun = await endOf('rerun_pipeline', answer.body.execution_id);
      expect(rerun).toMatchObject({ status: 'completed', forked_from: forkedFrom });
      expect((rerun.output as { text: string }).text).toBe('hi!');
      // The first step is linked, not rerun: the original's execution, reused (attempt 0).
      expect(stepOf(rerun, 'first')).toEqual({ ...stepOf(original, 'first'), attempt: 0 });
      expect(stepOf(rerun, 'second')?.execution_id).not.toBe(stepOf(original, 'second')?.execution_id);
      expect(stepOf(rerun, 'second')).toMatchObject({ status: 'completed', attempt: 1 });
      expect(rerun.steps?.map(({ step }) => step)).toEqual(['first', 'second', 'third']);
      // A completed execution reruns from the step chosen: the first two are reused from the rerun.
      const chosen = await replay('rerun_pipeline', rerun.execution_id, { from_step: 'third' });
      expect(chosen.status, JSON.stringify(chosen.body)).toBe(202);
      const third = await endOf('rerun_pipeline', chosen.body.execution_id);
      expect(third).toMatchObject({
        status: 'completed',
        output: { text: 'hi!' },
        forked_from: { execution_id: rerun.execution_id, step: 'third' },
      });
      for (const step of ['first', 'second']) {
        expect(stepOf(third, step)?.execution_id).toBe(stepOf(rerun, step)?.execution_id);
      }
    } finally {
      await rm(dependency, { force: true });
    }
  });

  it('reruns a composite written as code from its failed call, answering the calls before it from the record', async () => {
    const { final: original } = await client.run('rerun_code', { text: 'code', path: dependency });
    expect(original.error).toMatchObject({ code: 'STEP_FAILED', details: { step: 'second' } });
    await writeFile(dependency, '');
    try {
      const answer = await replay('rerun_code', original.execution_id);
      expect(answer.status, JSON.stringify(answer.body)).toBe(202);
      const rerun = await endOf('rerun_code', answer.body.execution_id);
      expect(rerun).toMatchObject({
        status: 'completed',
        output: { text: 'code!' },
        forked_from: { execution_id: original.execution_id, step: 'second' },
      });
      expect(stepOf(rerun, 'first')).toEqual({ ...stepOf(original, 'first'), attempt: 0 });
    } finally {
      await rm(dependency, { force: true });
    }
  });

  it('binds an Idempotency-Key to the step a replay reruns from', async () => {
    const original = await failedRun('keyed');
    const keyed = (body: unknown) =>
      client.request<InvocationAccepted & Refusal>(`/skills/rerun_pipeline/replay/${original.execution_id}`, {
        method: 'POST',
        headers: { 'idempotency-key': `rerun-${original.execution_id}` },
        json: body,
      });
    const first = await keyed({ from_step: 'second' });
    expect(first.status).toBe(202);
    const again = await keyed({ from_step: 'second' });
    expect([again.status, again.body.execution_id]).toEqual([202, first.body.execution_id]);
    const other = await keyed({ from_step: 'first' });
    expect([other.status, other.body.error?.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    await endOf('rerun_pipeline', first.body.execution_id);
  });

  it('replays the whole of a completed composite, or of one whose inputs are edited, as before', async () => {
    await writeFile(dependency, '');
    try {
      const { final } = await client.run('rerun_pipeline', { text: 'all', path: dependency });
      const whole = await replay('rerun_pipeline', final.execution_id);
      expect(whole.status).toBe(202);
      expect(whole.body.forked_from).toBeUndefined();
      const again = await endOf('rerun_pipeline', whole.body.execution_id);
      expect(again.steps?.every(({ attempt }) => attempt === 1)).toBe(true);
    } finally {
      await rm(dependency, { force: true });
    }
    const failed = await failedRun('edited');
    const edited = await replay('rerun_pipeline', failed.execution_id, {
      inputs: { text: 'other', path: dependency },
    });
    expect(edited.status).toBe(202);
    expect(edited.body.forked_from).toBeUndefined();
    await endOf('rerun_pipeline', edited.body.execution_id);
  });

  it('refuses an unknown step, a step before which nothing completed, edited inputs and a plain skill with 400 naming from_step', async () => {
    const original = await failedRun('refused');
    const refusals: [string, string, unknown, RegExp][] = [
      [
        'rerun_pipeline',
        original.execution_id,
        { from_step: 'nowhere' },
        /no step "nowhere".*first, second, third/,
      ],
      [
        'rerun_pipeline',
        original.execution_id,
        { from_step: 'third' },
        /step "second", before "third", did not complete/,
      ],
      [
        'rerun_pipeline',
        original.execution_id,
        { from_step: 'second', inputs: { text: 'x', path: dependency } },
        /edited inputs/,
      ],
    ];
    const { final: plain } = await client.run('echo', { text: 'plain' });
    refusals.push(['echo', plain.execution_id, { from_step: 'first' }, /echo is not a composite/]);
    for (const [skill, id, body, message] of refusals) {
      const refused = await replay(skill, id, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error?.code).toBe('INVALID_INPUT');
      expect(refused.body.error?.message).toMatch(message);
      expect(refused.body.error?.details).toEqual([expect.objectContaining({ path: '/from_step' })]);
    }
    const after = await client.request<{ executions: Execution[] }>(
      '/executions?skill_id=rerun_pipeline&limit=100',
      {
        headers: ADMIN_HEADERS,
      },
    );
    expect(after.body.executions.filter(({ replay_of }) => replay_of === original.execution_id)).toEqual([]);
  });

  it("refuses with 410 OUTPUTS_EXPIRED when a reused step's execution has expired", async () => {
    const original = await failedRun('expired');
    const first = stepOf(original, 'first')?.execution_id ?? '';
    expect(await redis.del(new RedisKeys('{skillrun}').execution(first))).toBe(1);
    const refused = await replay('rerun_pipeline', original.execution_id);
    expect(refused.status).toBe(410);
    expect(refused.body.error).toMatchObject({
      code: 'OUTPUTS_EXPIRED',
      details: { step: 'first', execution_id: first },
      suggested_action: 'Replay with {"from_step": "first"}',
    });
    // Named as its first step, the whole pipeline reruns: nothing is reused.
    const whole = await replay('rerun_pipeline', original.execution_id, { from_step: 'first' });
    expect(whole.status).toBe(202);
    await endOf('rerun_pipeline', whole.body.execution_id);
  });

  it('replays in bulk, each failed composite from the step it failed at', async () => {
    const failed = [await failedRun('bulk one'), await failedRun('bulk two')];
    await writeFile(dependency, '');
    try {
      const answer = await client.request<BulkReplayResult>('/executions/replay', {
        json: { skill_id: 'rerun_pipeline', status: 'failed', limit: 100 },
        headers: ADMIN_HEADERS,
      });
      expect(answer.status).toBe(200);
      for (const original of failed) {
        const replayed = answer.body.replays.find(({ replay_of }) => replay_of === original.execution_id);
        const rerun = await endOf('rerun_pipeline', String(replayed?.execution_id));
        expect(rerun.forked_from).toEqual({ execution_id: original.execution_id, step: 'second' });
        expect(stepOf(rerun, 'first')?.execution_id).toBe(stepOf(original, 'first')?.execution_id);
      }
      const unknown = await client.request<BulkReplayResult>('/executions/replay', {
        json: { skill_id: 'rerun_pipeline', status: 'failed', limit: 100, from_step: 'nowhere' },
        headers: ADMIN_HEADERS,
      });
      expect(unknown.status).toBe(200);
      expect(unknown.body.replays.length).toBeGreaterThan(0);
      for (const each of unknown.body.replays) expect(each.error?.code).toBe('INVALID_INPUT');
    } finally {
      await rm(dependency, { force: true });
    }
  });

  it('reruns from a step with skillrun replay --from-step, and says why it cannot', async () => {
    const original = await failedRun('cli');
    const env = { SKILLRUN_URL: system.gateway.url, SKILLRUN_API_KEY: TEST_ADMIN_KEY };
    const args = ['replay', 'rerun_pipeline', original.execution_id];
    const unknown = await runSkillrun([...args, '--from-step', 'nowhere'], { env });
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain('INVALID_INPUT');
    expect(unknown.stderr).toContain('from_step');
    expect(unknown.stderr).toContain('no step "nowhere"');
    const chosen = await runSkillrun([...args, '--from-step', 'second', '--json'], { env });
    expect(chosen.code, chosen.stderr).toBe(0);
    const accepted = JSON.parse(chosen.stdout) as InvocationAccepted;
    expect(accepted.forked_from).toEqual({ execution_id: original.execution_id, step: 'second' });
    const plain = await runSkillrun(args, { env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain(`rerun from step second of ${original.execution_id}`);
    for (const id of [accepted.execution_id, plain.stdout.trim()]) {
      const rerun = await endOf('rerun_pipeline', id);
      expect(stepOf(rerun, 'first')?.execution_id).toBe(stepOf(original, 'first')?.execution_id);
    }
  });

  it('offers "Rerun from here" on each step of the console\'s execution page', async () => {
    const original = await failedRun('console');
    browser = await launchChromium();
    const origin = system.gateway.url.replace('127.0.0.1', CONSOLE_HOST);
    const tab = await ConsoleTab.open(browser, origin);
    try {
      await tab.signIn(TEST_ADMIN_KEY);
      const { page } = tab;
      await page.goto(`${origin}/console/#/executions/rerun_pipeline/${original.execution_id}`);
      await page.locator('.headline .status-failed').waitFor();
      // The failed composite ran two of its steps: each offers a rerun from it.
      await expect.poll(() => page.locator('.steps button.rerun').count()).toBe(2);
      await writeFile(dependency, '');
      await page.getByRole('button', { name: 'Rerun from step second' }).click();
      await page.waitForURL((url) => !url.hash.endsWith(original.execution_id));
      await page.getByText('Rerun from', { exact: true }).waitFor();
      await page.locator('.headline .status-completed').waitFor();
      await page.getByText('(reused from the execution it forked from)').waitFor();
      const rerunId = decodeURIComponent(new URL(page.url()).hash.split('/').at(-1) ?? '');
      const rerun = await endOf('rerun_pipeline', rerunId);
      expect(rerun.forked_from).toEqual({ execution_id: original.execution_id, step: 'second' });
      expect(stepOf(rerun, 'first')?.execution_id).toBe(stepOf(original, 'first')?.execution_id);
      expect(tab.pageErrors).toEqual([]);
    } finally {
      await rm(dependency, { force: true });
      await tab.close();
    }
  });

  // Last: it adds a worker with fit_target 2.0.0, which every later resolution would pick.
  it("refuses a rerun whose reused outputs no longer fit the step's current version (a major change)", async () => {
    const { final: original } = await client.run('fit_pipeline', { text: 'fail' });
    expect(original.error).toMatchObject({ code: 'STEP_FAILED', details: { step: 'use' } });
    await system.addWorker({ SKILLS_DIR: fixtures('rerun-skills-v2') });
    await expect
      .poll(async () => (await client.request<{ version?: string }>('/skills/fit_target')).body.version, {
        timeout: 20_000,
      })
      .toBe('2.0.0');
    const refused = await replay('fit_pipeline', original.execution_id);
    expect(refused.status).toBe(400);
    expect(refused.body.error?.code).toBe('INVALID_INPUT');
    expect(refused.body.error?.message).toMatch(/no longer fit the input of step "use" \(fit_target@2\.0\.0/);
    expect(refused.body.error?.details).toEqual([expect.objectContaining({ path: '/from_step' })]);
    // From its first step the pipeline reruns whole, and fails where the new version refuses the text.
    const whole = await replay('fit_pipeline', original.execution_id, { from_step: 'make' });
    expect(whole.status).toBe(202);
    expect((await endOf('fit_pipeline', whole.body.execution_id)).error?.code).toBe('STEP_FAILED');
  });
});
