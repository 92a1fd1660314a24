import type { Schedule } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runSkillrun } from '../support/cli-process';
import { TestSystem } from '../support/system';

describe('skillrun schedules, against a real service', () => {
  let system: TestSystem;
  let env: Record<string, string>;

  const skillrun = (args: string[]) => runSkillrun(args, { env });
  const expectCode = (run: CliRun, code: number) =>
    expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(code);

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ WORKER_SKILLS: 'echo' });
    env = {
      SKILLRUN_URL: system.gateway.url,
      SKILLRUN_API_KEY: await system.client.createKey('cli-scheduler'),
    };
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('creates, lists, shows, pauses, resumes and deletes a schedule; executions --schedule lists its runs', async () => {
    const created = await skillrun(['schedules', 'create', 'echo', 'text=hello', '--every', '1s']);
    expectCode(created, 0);
    const id = created.stdout.trim();
    expect(id).toMatch(/^sch_[A-Za-z0-9_-]{22}$/);

    const listed = await skillrun(['schedules']);
    expectCode(listed, 0);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^SCHEDULE\s+SKILL\s+WHEN\s+NEXT$/);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(new RegExp(`^${id}\\s+echo\\s+every 1s\\s+\\d{4}-`));

    await expect
      .poll(async () => {
        const shown = await skillrun(['schedules', 'show', id, '--json']);
        return (JSON.parse(shown.stdout) as Schedule).last_runs?.some((run) => run.status === 'completed');
      })
      .toBe(true);
    const shown = await skillrun(['schedules', 'show', id]);
    expectCode(shown, 0);
    expect(shown.stdout).toMatch(/^schedule\s+sch_/m);
    expect(shown.stdout).toMatch(/^when\s+every 1s$/m);
    expect(shown.stdout).toMatch(/^DUE\s+OUTCOME\s+EXECUTION\s+STATUS$/m);
    expect(shown.stdout).toMatch(/\slaunched\s+[0-9a-f-]{36}\s+completed/);

    const paused = await skillrun(['schedules', 'pause', id]);
    expectCode(paused, 0);
    expect(paused.stdout.trim()).toBe(`${id} paused`);
    expect((await skillrun(['schedules'])).stdout).toMatch(
      new RegExp(`^${id}\\s+echo\\s+every 1s\\s+paused$`, 'm'),
    );
    const resumed = await skillrun(['schedules', 'resume', id, '--json']);
    expectCode(resumed, 0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ schedule_id: id, paused: false });

    const runs = await skillrun(['executions', '--schedule', id, '--json']);
    expectCode(runs, 0);
    const page = JSON.parse(runs.stdout) as { executions: Array<{ schedule_id?: string }> };
    expect(page.executions.length).toBeGreaterThan(0);
    expect(page.executions.every((execution) => execution.schedule_id === id)).toBe(true);

    const deleted = await skillrun(['schedules', 'delete', id]);
    expectCode(deleted, 0);
    const gone = await skillrun(['schedules', 'show', id]);
    expectCode(gone, 3);
    expect(gone.stderr).toContain('SCHEDULE_NOT_FOUND');
  });

  it('backfills a past window of a paused schedule: each due time once, then none again', async () => {
    const created = await skillrun([
      'schedules',
      'create',
      'echo',
      'text=late',
      '--cron',
      '*/10 * * * *',
      '--paused',
    ]);
    expectCode(created, 0);
    const id = created.stdout.trim();
    const now = Date.now();
    const from = new Date(Math.floor(now / 600_000) * 600_000 - 1_200_000).toISOString();
    const first = await skillrun(['schedules', 'backfill', id, '--from', from]);
    expectCode(first, 0);
    const queued = first.stdout.trim().split('\n');
    expect(queued.length).toBeGreaterThanOrEqual(2);
    expect(queued.every((line) => / queued$/.test(line))).toBe(true);
    await expect
      .poll(async () => {
        const runs = await skillrun(['executions', '--schedule', id, '--json']);
        return (JSON.parse(runs.stdout) as { executions: unknown[] }).executions.length;
      })
      .toBe(queued.length);
    const again = await skillrun(['schedules', 'backfill', id, '--from', from, '--json']);
    expectCode(again, 0);
    expect(JSON.parse(again.stdout)).toMatchObject({ schedule_id: id, queued: [] });
    const future = await skillrun([
      'schedules',
      'backfill',
      id,
      '--from',
      from,
      '--to',
      '2999-01-01T00:00:00Z',
    ]);
    expectCode(future, 2);
    expect(future.stderr).toContain('PARAM_OUT_OF_RANGE');
    expectCode(await skillrun(['schedules', 'delete', id]), 0);
  });

  it('exits 2 without exactly one of --cron and --every, or with a bad duration; the service refuses a bad cron', async () => {
    expectCode(await skillrun(['schedules', 'create', 'echo', 'text=x']), 2);
    expectCode(await skillrun(['schedules', 'create', 'echo', 'text=x', '--every', 'often']), 2);
    const refused = await skillrun(['schedules', 'create', 'echo', 'text=x', '--cron', 'sometimes']);
    expectCode(refused, 2);
    expect(refused.stderr).toContain('INVALID_INPUT');
    expect((await skillrun(['schedules', 'list', '--json'])).stdout).toContain('"schedules": []');
  });
});
