import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@skillrun/redis-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runSkillrun } from '../support/cli-process';
import { CliTmux } from '../support/cli-tmux';
import { fixtureSkills, repoRoot, TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('skillrun, the command line, against a real service', () => {
  let system: TestSystem;
  let env: Record<string, string>;
  let scratch: string;

  /** `skillrun ...` against the test's gateway. */
  const skillrun = (args: string[], options: { env?: Record<string, string>; stdin?: string } = {}) =>
    runSkillrun(args, { ...options, env: { ...env, ...options.env } });

  const expectCode = (run: CliRun, code: number) =>
    expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(code);

  beforeAll(async () => {
    system = await TestSystem.start();
    await Promise.all([
      system.addWorker({ SKILLS_DIR: fixtureSkills }),
      system.addWorker({ SKILLS_DIR: `${repoRoot}test/fixtures/stream-skills` }),
    ]);
    env = { SKILLRUN_URL: system.gateway.url, SKILLRUN_CALLER: 'cli-tester' };
    scratch = await mkdtemp(join(tmpdir(), 'skillrun-cli-'));
  });
  afterAll(async () => {
    await system?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('is on the PATH of the repository after npm install (npx skillrun), with help that lists exit codes', async () => {
    const run = await runSkillrun(['--help'], { bin: 'node_modules/.bin/skillrun' });
    expectCode(run, 0);
    for (const text of [
      'invoke',
      'executions',
      'keys',
      'types',
      'SKILLRUN_API_KEY',
      'Exit codes',
      '5  the service',
    ]) {
      expect(run.stdout).toContain(text);
    }
  });

  it('lists and searches skills as a table, and as JSON for scripts', async () => {
    const table = await skillrun(['skills', '--limit', '100']);
    expectCode(table, 0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+VERSION\s+CAPABILITY\s+DESCRIPTION$/);
    expect(rows.find((row) => row.startsWith('echo '))).toMatch(
      /^echo\s+1\.0\.0\s+\S+\s+Test fixture: returns/,
    );
    expect(rows.some((row) => row.startsWith('stepper '))).toBe(true);
    // Not a terminal: no colour codes.
    expect(table.stdout).not.toContain('\u001b[');

    const json = await skillrun(['skills', 'progress', '--json']);
    expectCode(json, 0);
    const page = JSON.parse(json.stdout) as { skills: { id: string }[]; next_cursor: string | null };
    expect(page.skills.map((skill) => skill.id)).toEqual(['stepper']);
  });

  it('prints the skills as tool definitions a framework loads: Anthropic tools, and the whole answer with --json', async () => {
    const tools = await skillrun(['tools', 'echo', '--format', 'anthropic']);
    expectCode(tools, 0);
    expect(JSON.parse(tools.stdout)).toEqual([
      {
        name: 'echo',
        description: expect.any(String),
        input_schema: expect.objectContaining({ type: 'object' }),
      },
    ]);
    const json = await skillrun(['tools', 'echo', '--format', 'openai-responses', '--json']);
    expectCode(json, 0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      format: 'openai-responses',
      tools: [{ type: 'function', name: 'echo' }],
      skills: [{ skill_id: 'echo', tool_name: 'echo' }],
    });
  });

  it('describes a skill readably (inputs table, output, endpoint, auth), and as its descriptor with --json', async () => {
    const readable = await skillrun(['describe', 'echo']);
    expectCode(readable, 0);
    expect(readable.stdout).toMatch(/^echo 1\.0\.0/);
    expect(readable.stdout).toMatch(/NAME\s+TYPE\s+REQUIRED\s+DEFAULT\s+RULES\s+DESCRIPTION/);
    expect(readable.stdout).toMatch(/text\s+string\s+yes\s+1\.\.50 chars/);
    expect(readable.stdout).toMatch(/count\s+integer\s+no\s+1\s+1\.\.10/);
    expect(readable.stdout).toMatch(/mode\s+string\s+no\s+one of plain\|loud/);
    expect(readable.stdout).toContain(`invoke  POST ${system.gateway.url}/skills/echo/invoke`);
    expect(readable.stdout).toMatch(/auth\s+none/);
    expect(readable.stdout).toContain('Output (application/json)');

    const json = await skillrun(['describe', 'echo', '--json']);
    expectCode(json, 0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      id: 'echo',
      version: '1.0.0',
      inputs: expect.any(Array),
    });
  });

  it('invokes with inputs as JSON, @file, stdin and key=value, printing the execution id', async () => {
    await writeFile(join(scratch, 'inputs.json'), JSON.stringify({ text: 'file', count: 2 }));
    const forms: [string[], string | undefined, unknown][] = [
      [['--input', '{"text":"json","count":3}'], undefined, { text: 'jsonjsonjson', count: 3 }],
      [['--input', `@${join(scratch, 'inputs.json')}`], undefined, { text: 'filefile', count: 2 }],
      [['--input', '-'], '{"text":"stdin"}', { text: 'stdin', count: 1 }],
      [['text=kv', 'count=2', 'mode=loud'], undefined, { text: 'kvkv', count: 2 }],
    ];
    await Promise.all(
      forms.map(async ([args, stdin, output]) => {
        const run = await skillrun(['invoke', 'echo', ...args], stdin === undefined ? {} : { stdin });
        expectCode(run, 0);
        const id = run.stdout.trim();
        expect(id).toMatch(UUID);
        const { final } = await system.client.waitForEnd('echo', id);
        expect(final).toMatchObject({ status: 'completed', output });
      }),
    );

    const json = await skillrun(['invoke', 'echo', 'text=hi', '--json']);
    expectCode(json, 0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      execution_id: expect.stringMatching(UUID),
      status: 'accepted',
    });
  });

  it('invoke --wait prints the output and exits 0; status and result read it afterwards', async () => {
    const run = await skillrun(['invoke', 'echo', 'text=ab', 'count=2', '--wait']);
    expectCode(run, 0);
    expect(JSON.parse(run.stdout)).toMatchObject({ text: 'abab', count: 2 });
    // Not a terminal: one plain line per change on stderr, no bar.
    expect(run.stderr).toMatch(/echo [0-9a-f-]{36}: completed/);

    const json = await skillrun(['invoke', 'stepper', 'steps=2', 'pause_ms=10', '--wait', '--json']);
    expectCode(json, 0);
    const execution = JSON.parse(json.stdout) as { execution_id: string; status: string };
    expect(execution).toMatchObject({ status: 'completed', output: { steps: 2 }, progress: 100 });

    const status = await skillrun(['status', 'stepper', execution.execution_id]);
    expectCode(status, 0);
    expect(status.stdout).toMatch(/status\s+completed/);
    expect(status.stdout).toMatch(/attempts\s+1\/1/);
    const result = await skillrun(['result', 'stepper', execution.execution_id]);
    expectCode(result, 0);
    expect(JSON.parse(result.stdout)).toEqual({ steps: 2 });
  });

  it('invoke --delay and --run-at start it later (accepted with scheduled_for until then); bad ones exit 2', async () => {
    const delayed = await skillrun(['invoke', 'echo', 'text=later', '--delay', '2s', '--json']);
    expectCode(delayed, 0);
    const accepted = JSON.parse(delayed.stdout) as {
      execution_id: string;
      timestamps: { created_at: string; scheduled_for: string };
    };
    expect(Date.parse(accepted.timestamps.scheduled_for) - Date.parse(accepted.timestamps.created_at)).toBe(
      2000,
    );
    const runAt = new Date(Date.now() + 1500).toISOString();
    const timed = await skillrun(['invoke', 'echo', 'text=at', '--run-at', runAt, '--wait', '--json']);
    expectCode(timed, 0);
    const ran = JSON.parse(timed.stdout) as {
      status: string;
      timestamps: { created_at: string; scheduled_for: string; started_at: string };
    };
    expect(ran.status).toBe('completed');
    // Due at run_at, or at once when a slow start of the CLI let run_at pass before the invocation.
    expect(Date.parse(ran.timestamps.scheduled_for)).toBe(
      Math.max(Date.parse(runAt), Date.parse(ran.timestamps.created_at)),
    );
    expect(Date.parse(ran.timestamps.started_at)).toBeGreaterThanOrEqual(Date.parse(runAt));
    const { final } = await system.client.waitForEnd('echo', accepted.execution_id);
    expect(final.status).toBe('completed');

    for (const [args, said] of [
      [['--delay', 'soon'], /--delay/],
      [['--delay', '1s', '--run-at', runAt], /cannot be used with/],
      [['--run-at', 'tomorrow'], /\/context\/run_at/],
      [['--delay', '400d'], /\/context\/delay_ms/],
    ] as const) {
      const bad = await skillrun(['invoke', 'echo', 'text=never', ...args]);
      expectCode(bad, 2);
      expect(bad.stderr).toMatch(said);
    }
  });

  it('follows an execution started elsewhere: result while running, --timeout, status --wait, result --wait', async () => {
    const started = await skillrun(['invoke', 'stepper', 'steps=10', 'pause_ms=1000']);
    expectCode(started, 0);
    const id = started.stdout.trim();
    const early = await skillrun(['result', 'stepper', id]);
    expectCode(early, 1);
    expect(early.stderr).toMatch(
      /(accepted|running): it has not ended yet; wait for it with `skillrun result stepper/,
    );

    const impatient = await skillrun(['status', 'stepper', id, '--wait', '--timeout', '50']);
    expectCode(impatient, 1);
    expect(impatient.stderr).toContain('had not ended within --timeout');
    expect(impatient.stderr).toContain(`skillrun status stepper ${id} --wait`);

    const [watched, waited] = await Promise.all([
      skillrun(['status', 'stepper', id, '--wait']),
      skillrun(['result', 'stepper', id, '--wait']),
    ]);
    expectCode(watched, 0);
    expect(watched.stdout).toMatch(/status\s+completed/);
    expect(watched.stdout).toMatch(/progress\s+100%/);
    expectCode(waited, 0);
    expect(JSON.parse(waited.stdout)).toEqual({ steps: 10 });
  });

  it('exits 1 when the execution fails, with its code and what to do on stderr', async () => {
    const run = await skillrun(['invoke', 'fatal', '--wait']);
    expectCode(run, 1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('failed: QUOTA_GONE: The account behind this skill is closed');
    expect(run.stderr).toContain('Do not retry');

    const json = await skillrun(['invoke', 'fatal', '--wait', '--json']);
    expectCode(json, 1);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'failed', error: { code: 'QUOTA_GONE' } });
  });

  it('exits 2 on bad input, naming the field; 2 on a bad flag; nothing runs', async () => {
    const run = await skillrun(['invoke', 'echo', 'count=50', '--wait']);
    expectCode(run, 2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('/inputs/text');
    expect(run.stderr).toContain('/inputs/count');
    expect(run.stderr).toContain('skillrun describe');
    expect(run.stderr).not.toMatch(/\n\s+at /);

    for (const args of [
      ['invoke', 'echo', '--input', '{oops'],
      ['invoke', 'echo', 'oops'],
      ['skills', '--colour'],
      ['tools', '--format', 'yaml'],
    ]) {
      const bad = await skillrun(args);
      expectCode(bad, 2);
      expect(bad.stderr).toMatch(/error:/);
    }
  });

  it('exits 3 for an unknown skill, 4 for a bad key, 5 when the service is unreachable', async () => {
    const unknown = await skillrun(['invoke', 'no_such_skill', 'a=1']);
    expectCode(unknown, 3);
    expect(unknown.stderr).toContain('SKILL_NOT_FOUND');
    expect(unknown.stderr).toContain('skillrun skills');

    const badKey = await skillrun(['invoke', 'echo', 'text=x'], {
      env: { SKILLRUN_API_KEY: 'srk_0123456789abcdef_not-a-real-secret-000000000000000000000' },
    });
    expectCode(badKey, 4);
    expect(badKey.stderr).toContain('AUTH_REQUIRED');

    const port = await freePort();
    const away = await skillrun(['skills', '--url', `http://127.0.0.1:${port}`]);
    expectCode(away, 5);
    expect(away.stderr).toContain(`http://127.0.0.1:${port}`);
    expect(away.stderr).toContain('--url');

    const json = await skillrun(['describe', 'no_such_skill', '--json']);
    expectCode(json, 3);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'SKILL_NOT_FOUND', exit_code: 3 } });
  });

  it('cancels a running execution; cancelling one that completed exits 1', async () => {
    const started = await skillrun(['invoke', 'sleepy', 'ms=30000']);
    expectCode(started, 0);
    const id = started.stdout.trim();
    await expect.poll(async () => (await system.client.status('sleepy', id)).status).toBe('running');
    const canceled = await skillrun(['cancel', 'sleepy', id]);
    expectCode(canceled, 0);
    expect(canceled.stdout.trim()).toBe(`canceled ${id}`);
    const result = await skillrun(['result', 'sleepy', id]);
    expectCode(result, 1);
    expect(result.stderr).toContain('EXECUTION_CANCELED');

    const done = JSON.parse((await skillrun(['invoke', 'echo', 'text=x', '--wait', '--json'])).stdout);
    const late = await skillrun(['cancel', 'echo', done.execution_id]);
    expectCode(late, 1);
    expect(late.stderr).toContain('EXECUTION_ENDED');
  });

  it('invoke --batch: the batch id and each item in its place; --wait follows it to its end', async () => {
    const file = join(scratch, 'items.jsonl');
    await writeFile(
      file,
      [
        JSON.stringify({ skill_id: 'echo', inputs: { text: 'one' } }),
        '',
        // No skill_id: the command's skill.
        JSON.stringify({ inputs: { text: 42 } }),
        JSON.stringify({ skill_id: 'stepper', inputs: { steps: 2, pause_ms: 10 } }),
      ].join('\n'),
    );
    const run = await skillrun(['invoke', 'echo', '--batch', file]);
    expectCode(run, 1);
    const [batch, ...places] = run.stdout.trim().split('\n');
    expect(batch).toMatch(/^batch [0-9a-f-]{36}$/);
    expect(places[0]).toMatch(/^1 [0-9a-f-]{36}$/);
    expect(places[1]).toMatch(/^2 INVALID_INPUT /);
    expect(places[2]).toMatch(/^3 [0-9a-f-]{36}$/);

    const lines = ['a', 'b'].map((text) => JSON.stringify({ skill_id: 'echo', inputs: { text } })).join('\n');
    const waited = await skillrun(['invoke', '--batch', '-', '--wait'], { stdin: lines });
    expectCode(waited, 0);
    const printed = waited.stdout.trim().split('\n');
    const ids = printed.slice(1, 3).map((line) => line.split(' ')[1]);
    expect(printed.slice(3)).toEqual(ids.map((id) => `completed ${id}`));
    expect(waited.stderr).toContain('2 completed');

    const bad = await skillrun(['invoke', '--batch', '-'], {
      stdin: '{"skill_id":"echo","inputs":{}}\nnot json',
    });
    expectCode(bad, 2);
    expect(bad.stderr).toContain('line 2 of standard input is not JSON');
  });

  it('pauses and resumes a skill as an admin, and cancels what filters find with cancel --all', async () => {
    const admin = { env: { SKILLRUN_API_KEY: TEST_ADMIN_KEY, SKILLRUN_CALLER: '' } };
    const paused = await skillrun(['pause', 'sleepy', '--json'], admin);
    expectCode(paused, 0);
    expect(JSON.parse(paused.stdout)).toMatchObject({ skill_id: 'sleepy', paused: true, paused_by: 'admin' });
    const again = await skillrun(['pause', 'sleepy'], admin);
    expectCode(again, 0);
    expect(again.stdout.trim()).toMatch(/^sleepy paused since \S+ by admin$/);
    expectCode(await skillrun(['pause', 'sleepy']), 4);

    const as = { env: { SKILLRUN_API_KEY: await system.client.createKey('cli-bulk'), SKILLRUN_CALLER: '' } };
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) ids.push((await skillrun(['invoke', 'sleepy', 'ms=1'], as)).stdout.trim());
    for (const args of [['--all', 'sleepy'], ['sleepy'], ['sleepy', String(ids[0]), '--skill', 'sleepy']]) {
      expectCode(await skillrun(['cancel', ...args], as), 2);
    }
    const bulk = await skillrun(['cancel', '--all', '--skill', 'sleepy', '--status', 'accepted'], as);
    expectCode(bulk, 0);
    expect(bulk.stdout.trim()).toBe('canceled 3 executions');
    for (const id of ids)
      expect((await system.client.status('sleepy', id, { 'x-api-key': TEST_ADMIN_KEY })).status).toBe(
        'canceled',
      );

    const resumed = await skillrun(['resume', 'sleepy'], admin);
    expectCode(resumed, 0);
    expect(resumed.stdout.trim()).toBe('sleepy runs (not paused)');
  });

  it('lists executions with filters (skill, status, since, until, limit, cursor) as a table and JSON', async () => {
    const key = await system.client.createKey('cli-history');
    // The key alone (no SKILLRUN_CALLER): the caller it stands for comes from the service (GET /me).
    const as = { env: { SKILLRUN_API_KEY: key, SKILLRUN_CALLER: '' } };
    const ok = JSON.parse((await skillrun(['invoke', 'echo', 'text=h', '--wait', '--json'], as)).stdout);
    const ok2 = JSON.parse((await skillrun(['invoke', 'echo', 'text=i', '--wait', '--json'], as)).stdout);
    const bad = JSON.parse((await skillrun(['invoke', 'fatal', '--wait', '--json'], as)).stdout);

    const table = await skillrun(['executions'], as);
    expectCode(table, 0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^EXECUTION\s+SKILL\s+STATUS\s+CREATED\s+TOOK$/);
    expect(rows.map((row) => row.split(/\s+/)[0])).toEqual([
      bad.execution_id,
      ok2.execution_id,
      ok.execution_id,
    ]);
    expect(rows[0]).toMatch(/fatal 1\.0\.0\s+failed/);

    const ids = async (...args: string[]) => {
      const run = await skillrun(['executions', '--json', ...args], as);
      expectCode(run, 0);
      const page = JSON.parse(run.stdout) as {
        executions: { execution_id: string }[];
        next_cursor: string | null;
      };
      return { ids: page.executions.map((execution) => execution.execution_id), cursor: page.next_cursor };
    };
    expect((await ids('--skill', 'fatal')).ids).toEqual([bad.execution_id]);
    expect((await ids('--status', 'completed')).ids).toEqual([ok2.execution_id, ok.execution_id]);
    expect((await ids('--status', 'failed,canceled', '--since', '1h')).ids).toEqual([bad.execution_id]);
    expect((await ids('--until', '1h')).ids).toEqual([]);
    expect((await ids('--since', '2000-01-01', '--until', '2000-01-02')).ids).toEqual([]);
    const first = await ids('--limit', '2');
    expect(first.ids).toEqual([bad.execution_id, ok2.execution_id]);
    expect(first.cursor).not.toBeNull();
    expect((await ids('--limit', '2', '--cursor', String(first.cursor))).ids).toEqual([ok.execution_id]);

    const none = await skillrun(['executions', '--until', '1h'], as);
    expectCode(none, 0);
    expect(none.stderr).toContain('No executions');
    const badTime = await skillrun(['executions', '--since', 'yesterday'], as);
    expectCode(badTime, 2);
    const anonymous = await skillrun(['executions']);
    expectCode(anonymous, 4);
    expect(anonymous.stderr).toContain('--api-key');
  });

  it('generates TypeScript types that make client.skill(id).invoke type-checked (tsc)', async () => {
    const project = join(scratch, 'consumer');
    await mkdir(join(project, 'node_modules', '@skillrun'), { recursive: true });
    // A consumer project with @skillrun/client installed (here: linked) and Node's types.
    await symlink(join(repoRoot, 'packages/client'), join(project, 'node_modules/@skillrun/client'));
    await symlink(join(repoRoot, 'node_modules/@types'), join(project, 'node_modules/@types'));
    const generated = await skillrun(['types', 'echo', 'stepper', '--out', join(project, 'skills.d.ts')]);
    expectCode(generated, 0);
    expect(generated.stderr).toContain('echo 1.0.0, stepper 1.0.0');

    await writeFile(
      join(project, 'consumer.ts'),
      `import { SkillrunClient } from '@skillrun/client';

const client = new SkillrunClient({ baseUrl: 'http://127.0.0.1:3000' });

export async function use(): Promise<string> {
  await client.skill('echo').invoke({ text: 'hi', count: 2, mode: 'loud' });
  const echoed = await client.skill('echo').invokeAndWait({ text: 'hi' });
  const stepped = await client.skill('stepper').invokeAndWait({ steps: 2, pause_ms: 1 });
  // @ts-expect-error count is a number
  await client.skill('echo').invoke({ text: 'hi', count: 'two' });
  // @ts-expect-error text is required
  await client.skill('echo').invoke({ count: 2 });
  // @ts-expect-error mode is plain or loud
  await client.skill('echo').invoke({ text: 'hi', mode: 'quiet' });
  // @ts-expect-error there is no such input
  await client.skill('echo').invoke({ text: 'hi', colour: 'red' });
  return echoed.text.repeat(stepped.steps);
}
`,
    );
    await writeFile(
      join(project, 'wrong.ts'),
      `import { SkillrunClient } from '@skillrun/client';\n\nnew SkillrunClient().skill('stepper').invoke({ steps: 'many', pause_ms: 1 });\n`,
    );
    const tsc = (files: string[]) => {
      const tsconfig = {
        compilerOptions: {
          target: 'ES2023',
          lib: ['ES2023'],
          module: 'Preserve',
          moduleResolution: 'Bundler',
          types: ['node'],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        files,
      };
      return writeFile(join(project, 'tsconfig.json'), JSON.stringify(tsconfig)).then(() =>
        runSkillrun(['-p', join(project, 'tsconfig.json')], {
          bin: join(repoRoot, 'node_modules/typescript/bin/tsc'),
        }),
      );
    };
    const right = await tsc(['skills.d.ts', 'consumer.ts']);
    expect(right.code, right.stdout).toBe(0);
    const wrong = await tsc(['skills.d.ts', 'consumer.ts', 'wrong.ts']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toMatch(
      /wrong\.ts\(3,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/,
    );
    expect(wrong.stdout).not.toContain('consumer.ts');
    // Without the generated types, the expected errors are not there: the types did the checking.
    const untyped = await tsc(['consumer.ts']);
    expect(untyped.stdout).toContain("Unused '@ts-expect-error' directive");
  });

  // In a real terminal: tmux (.ci/run installs it).
  it('invoke --wait in a real terminal (tmux): a live progress bar, then the output', async () => {
    const tmux = await CliTmux.start(
      `node ${repoRoot}apps/cli/bin/skillrun.mjs invoke stepper steps=10 pause_ms=700 --wait; echo "exit=$?"; sleep 300`,
      repoRoot,
      { SKILLRUN_URL: system.gateway.url, SKILLRUN_CALLER: 'cli-tester' },
    );
    try {
      // Partly filled, moving: the bar, its percentage and the status on one line.
      await expect
        .poll(() => tmux.screen(), { timeout: 30_000, interval: 100 })
        .toMatch(/running\s+█+░+\s+[1-9]\d%/);
      await expect.poll(() => tmux.screen(), { timeout: 30_000 }).toContain('exit=0');
      const screen = await tmux.screen();
      expect(screen).toMatch(/completed\s+█{30}\s+100%/);
      expect(screen).toContain('"steps": 10');
    } finally {
      await tmux.stop();
    }
  });
});
