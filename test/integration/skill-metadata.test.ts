import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Execution, ExecutionListPage } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSkillrun } from '../support/cli-process';
import { GatedRuns } from '../support/gated-runs';
import { ADMIN_HEADERS, fixtureSkills, TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

const metadataSkills = fileURLToPath(new URL('../fixtures/metadata-skills', import.meta.url));

// ctx.metadata: a running skill changes its execution's metadata, recorded as progress is; GET
// status and the listings' metadata filter (over HTTP and the CLI) see it while it runs and after.

describe('ctx.metadata: a running skill changes its execution metadata', () => {
  let system: TestSystem;
  let gates: GatedRuns;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR: [fixtureSkills, metadataSkills].join(delimiter) });
    await system.addWorker();
    gates = await GatedRuns.start(system.client);
  });
  afterAll(async () => {
    await gates?.openAll();
    await system?.stop();
  });

  it('is seen on the status while the skill runs, and listed by its new value; its last change ends with it', async () => {
    const gate = gates.newGate();
    const id = await gates.invoke('annotate', gate, { metadata: { order: 'A-7', temp: 1 } });
    let running: Execution | undefined;
    await expect
      .poll(async () => {
        running = await system.client.status('annotate', id);
        return (running.metadata as Record<string, unknown> | undefined)?.stage;
      })
      .toBe('working');
    expect(running?.status).toBe('running');
    expect(running?.metadata).toEqual({ order: 'A-7', temp: 1, stage: 'working', order_seen: 'A-7' });

    const listed = await system.client.request<ExecutionListPage>(
      '/executions?skill_id=annotate&metadata.stage=working',
      { headers: ADMIN_HEADERS },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.executions.map(({ execution_id }) => execution_id)).toEqual([id]);

    await gates.open(gate);
    const { final } = await system.client.waitForEnd('annotate', id);
    expect(final.status).toBe('completed');
    expect(final.metadata).toEqual({ order: 'A-7', stage: 'done', order_seen: 'A-7' });
    expect(final.output).toEqual({ refused: null, keys: ['order', 'order_seen', 'stage'] });

    const env = { SKILLRUN_URL: system.gateway.url, SKILLRUN_API_KEY: TEST_ADMIN_KEY };
    const done = await runSkillrun(
      ['executions', '--skill', 'annotate', '--metadata', 'stage=done', '--json'],
      {
        env,
      },
    );
    expect(done.code, done.stderr).toBe(0);
    expect(
      (JSON.parse(done.stdout) as ExecutionListPage).executions.map(({ execution_id }) => execution_id),
    ).toEqual([id]);
  });

  it('refuses a change over 4096 bytes as JSON to the skill, and records nothing of it', async () => {
    const gate = gates.newGate();
    await gates.open(gate);
    const answer = await system.client.request('/skills/annotate/invoke', {
      json: { caller: { id: 'tester', type: 'service' }, skill_id: 'annotate', inputs: { gate, big: true } },
    });
    expect(answer.status).toBe(202);
    const { final } = await system.client.waitForEnd('annotate', String(answer.body.execution_id));
    expect(final.status).toBe('completed');
    expect(final.output).toEqual({ refused: 'OUTPUT_TOO_LARGE', keys: ['order_seen', 'stage'] });
    expect(final.metadata).toEqual({ stage: 'done', order_seen: null });
  });
});
