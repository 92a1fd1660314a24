import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

// The snippets the README and docs/ quote are the files under examples/ (test/unit/docs-generated
// keeps the quotes equal to them); here each runs against a real gateway and worker, and what it
// prints is what the pages say it prints.

const run = promisify(execFile);

describe('examples/', () => {
  let system: TestSystem;
  let env: Record<string, string>;

  beforeAll(async () => {
    system = await TestSystem.start();
    // As the README's "Your first skill" starts it: the shipped skills and the examples' together,
    // hosting those the examples call (a worker compiles each skill it hosts as it starts).
    await system.addWorker({
      SKILLS_DIR: 'skills:examples/skills',
      WORKER_SKILLS:
        'text_stats,count_primes,memory_store,error_codes,hello,recall,customer_report,expense_approval,countdown',
    });
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      SKILLRUN_URL: system.gateway.url,
    };
  });

  afterAll(async () => {
    await system?.stop();
  });

  /** Runs an example from the repository's root, as a reader would, and returns what it printed. */
  async function runExample(
    command: string,
    args: string[],
    extra: Record<string, string> = {},
  ): Promise<string> {
    const { stdout } = await run(command, args, {
      cwd: repoRoot,
      env: { ...env, ...extra },
      // A hang guard, not a time asserted: an example may start the CLI six times, slow under load.
      timeout: 120_000,
    });
    return stdout;
  }

  it('first-execution-curl.sh: invoke answers accepted, one waiting GET status answers completed', async () => {
    const [accepted, ended] = (await runExample('sh', ['examples/shell/first-execution-curl.sh']))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(accepted).toMatchObject({ status: 'accepted', skill_id: 'text_stats', skill_version: '1.0.0' });
    expect(ended).toMatchObject({
      execution_id: accepted.execution_id,
      status: 'completed',
      output: { characters: 19, words: 4, sentences: 2, reading_time_seconds: 2 },
    });
    expect(ended.output.top_words[0]).toEqual({ word: 'fish', count: 2 });
  });

  it('batch-curl.sh: each item answered in its place, then one waiting GET answers the batch ended', async () => {
    const [accepted, ended] = (await runExample('sh', ['examples/shell/batch-curl.sh']))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(
      accepted.executions.map((slot: { error?: { code: string } }) => slot.error?.code ?? 'started'),
    ).toEqual(['started', 'PARAM_OUT_OF_RANGE', 'started']);
    expect(ended).toMatchObject({
      batch_id: accepted.batch_id,
      caller: { id: 'me', type: 'user' },
      items: 3,
      ended: true,
      counts: { accepted: 0, running: 0, completed: 2, failed: 0, timeout: 0, canceled: 0 },
    });
  });

  it('first-execution-cli.sh: finds text_stats, describes it, and prints its output', async () => {
    const printed = await runExample('sh', ['examples/shell/first-execution-cli.sh']);
    expect(printed).toMatch(/^text_stats\s+1\.0\.0\s+api\s+Counts the words/m);
    expect(printed).toMatch(/^\s*words_per_minute\s+integer\s+no\s+230\s+50\.\.1000/m);
    expect(JSON.parse(printed.slice(printed.lastIndexOf('\n{') + 1))).toMatchObject({
      characters: 19,
      words: 4,
      sentences: 2,
    });
  });

  it('first-skill.sh: the example skill is hosted and greets', async () => {
    const printed = await runExample('sh', ['examples/shell/first-skill.sh']);
    expect(printed).toContain('Greets someone by name.');
    expect(JSON.parse(printed.slice(printed.lastIndexOf('\n{') + 1))).toEqual({ greeting: 'Hello, Ada!' });
  });

  it('client/text-stats.ts: searches, invokes and waits, follows progress, and reads a refusal', async () => {
    const lines = (await runExample(process.execPath, ['--import', 'tsx', 'examples/client/text-stats.ts']))
      .trim()
      .split('\n');
    expect(lines[0]).toMatch(/^found: .*\btext_stats\b/);
    expect(lines[1]).toMatch(/^text_stats: \{"characters":19,"words":4,"sentences":2,/);
    expect(lines).toContain('count_primes: completed {"below":3000000,"count":216816,"largest":2999999}');
    expect(lines.at(-1)).toBe('refused: PARAM_OUT_OF_RANGE 400');
  });

  it('client/flow-control.ts: one report at a time per customer, and debounced calls run once with the last inputs', async () => {
    const lines = (await runExample(process.execPath, ['--import', 'tsx', 'examples/client/flow-control.ts']))
      .trim()
      .split('\n');
    expect(lines).toEqual([
      'acme in turn: true | globex beside acme: true',
      'calls: 3 | executions: 1',
      'debounced: false true true',
      'ran with: {"customer":"initech","pages":3}',
    ]);
  });

  it('client/stream.ts and streamed-output.sh: the chunks countdown streams, in order, then its output', async () => {
    const lines = (await runExample(process.execPath, ['--import', 'tsx', 'examples/client/stream.ts']))
      .trim()
      .split('\n');
    expect(lines).toEqual([
      'chunk: "3…\\n"',
      'chunk: "2…\\n"',
      'chunk: "1…\\n"',
      'chunk: {"liftoff":true}',
      'output: {"lines":4}',
    ]);
    const events = (await runExample('sh', ['examples/shell/streamed-output.sh'])).trim().split('\n');
    expect(events.map((line) => JSON.parse(line.slice('data:'.length)))).toEqual([
      { seq: 1, chunk: '3…\n' },
      { seq: 2, chunk: '2…\n' },
      { seq: 3, chunk: '1…\n' },
      { seq: 4, chunk: { liftoff: true } },
    ]);
  });

  it('skills/recall: finds what the caller stored, and fails with its own code when nothing matches', async () => {
    const invoke = async (skill: string, inputs: object) => {
      const answer = await fetch(`${system.gateway.url}/skills/${skill}/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', prefer: 'wait=20' },
        body: JSON.stringify({ caller: { id: 'reader', type: 'user' }, skill_id: skill, inputs }),
      });
      return (await answer.json()) as { status: string; output?: unknown; error?: { code: string } };
    };
    expect(await invoke('memory_store', { text: 'The fish swam upstream.' })).toMatchObject({
      status: 'completed',
    });
    expect(await invoke('recall', { query: 'fish' })).toMatchObject({
      status: 'completed',
      output: { count: 1 },
    });
    expect(await invoke('recall', { query: 'bicycle' })).toMatchObject({
      status: 'failed',
      error: { code: 'NOTHING_FOUND', message: 'No memory matches', recoverable: false },
    });
  });

  it('delayed-run.sh: accepted with scheduled_for two seconds on, accepted while it waits, then completed', async () => {
    const [accepted, waiting, ended] = (await runExample('sh', ['examples/shell/delayed-run.sh']))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(accepted).toMatchObject({ status: 'accepted', skill_id: 'text_stats' });
    const { created_at, scheduled_for } = accepted.timestamps;
    expect(Date.parse(scheduled_for) - Date.parse(created_at)).toBe(2000);
    expect(waiting).toMatchObject({ execution_id: accepted.execution_id, status: 'accepted' });
    expect(waiting.timestamps.scheduled_for).toBe(scheduled_for);
    expect(ended).toMatchObject({ status: 'completed', output: { characters: 12, words: 2, sentences: 1 } });
    expect(Date.parse(ended.timestamps.started_at)).toBeGreaterThanOrEqual(Date.parse(scheduled_for));
  });

  it('knowledge-query.sh: error_codes answers the two best matches in the one request', async () => {
    const ended = JSON.parse(await runExample('sh', ['examples/shell/knowledge-query.sh']));
    expect(ended).toMatchObject({ status: 'completed', output: { query: 'timed out', offset: 0, limit: 2 } });
    expect(ended.output.results).toHaveLength(2);
    expect(ended.output.results[0]).toMatchObject({
      id: 'TOOL_TIMEOUT',
      source: { file: 'error-codes.json' },
      document: { code: 'TOOL_TIMEOUT', http: 504 },
    });
  });

  it('schedule-curl.sh: a schedule runs text_stats at once, its run listed as an execution naming it, then is deleted', async () => {
    const key = await system.client.createKey('example-scheduler');
    const [created, runs] = (
      await runExample('sh', ['examples/shell/schedule-curl.sh'], { SKILLRUN_API_KEY: key })
    )
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(created).toMatchObject({
      skill_id: 'text_stats',
      every_ms: 2000,
      caller: { id: 'example-scheduler' },
    });
    expect(created.next_runs).toHaveLength(5);
    expect(runs.executions[0]).toMatchObject({
      schedule_id: created.schedule_id,
      skill_id: 'text_stats',
      status: 'completed',
    });
    const gone = await system.client.request(`/schedules/${created.schedule_id}`, {
      headers: { 'x-api-key': key },
    });
    expect(gone.status).toBe(404);
  });

  it('agents/mcp-client.ts: lists the tools and calls text_stats through the queue', async () => {
    const lines = (await runExample(process.execPath, ['--import', 'tsx', 'examples/agents/mcp-client.ts']))
      .trim()
      .split('\n');
    expect(lines[0]).toMatch(/^tools: .*\btext_stats\b/);
    expect(lines.at(-1)).toMatch(/^structuredContent: \{"characters":9,"words":2,"sentences":1,/);
  });

  it('agents/mcp-client-2026.ts: discovers revision 2026-07-28, lists the tools and calls text_stats', async () => {
    const lines = (
      await runExample(process.execPath, ['--import', 'tsx', 'examples/agents/mcp-client-2026.ts'])
    )
      .trim()
      .split('\n');
    expect(lines[0]).toBe('revision: 2026-07-28');
    expect(lines[1]).toMatch(/^served: 2026-07-28, 2025-11-25\b/);
    expect(lines[2]).toMatch(/^tools: .*\btext_stats\b/);
    expect(lines.at(-1)).toMatch(/^structuredContent: \{"characters":9,"words":2,"sentences":1,/);
  });

  it('agents/mcp-stream.ts: the chunks countdown streams, as progress notifications of the call, then its output', async () => {
    const lines = (await runExample(process.execPath, ['--import', 'tsx', 'examples/agents/mcp-stream.ts']))
      .trim()
      .split('\n');
    expect(lines).toEqual([
      'chunk: 3…',
      'chunk: 2…',
      'chunk: 1…',
      'chunk: {"liftoff":true}',
      'structuredContent: {"lines":4}',
    ]);
  });

  it('agents/mcp-task-form.ts: a task skill asks its form, and the answer hands the task in', async () => {
    const key = await system.client.createKey('expense-approver');
    const lines = (
      await runExample(process.execPath, ['--import', 'tsx', 'examples/agents/mcp-task-form.ts'], {
        SKILLRUN_API_KEY: key,
      })
    )
      .trim()
      .split('\n');
    expect(lines).toEqual([
      'asked: Approve the expense or not, and say why if not.',
      'fields: approved, comment',
      'structuredContent: {"approved":true,"comment":"within budget"}',
    ]);
  });

  it('agents/a2a-client.ts: sends text_stats a message and reads the completed task', async () => {
    const lines = (await runExample(process.execPath, ['--import', 'tsx', 'examples/agents/a2a-client.ts']))
      .trim()
      .split('\n');
    expect(lines[0]).toMatch(/^task: [0-9a-f-]{36} TASK_STATE_COMPLETED$/);
    expect(lines[1]).toMatch(/^output: \{"characters":9,"words":2,"sentences":1,/);
  });

  it('agents/a2a-tasks.ts: lists the two tasks of its context, newest first, a page at a time', async () => {
    const key = await system.client.createKey('example-lister');
    const lines = (
      await runExample(process.execPath, ['--import', 'tsx', 'examples/agents/a2a-tasks.ts'], {
        SKILLRUN_API_KEY: key,
      })
    )
      .trim()
      .split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^task [0-9a-f-]{36}: 4 words \(2 in the context\)$/),
      expect.stringMatching(/^task [0-9a-f-]{36}: 2 words \(2 in the context\)$/),
    ]);
  });

  // Last: it pauses text_stats, which the others run.
  it('pause-and-cancel.sh: the invocations of a paused skill wait, are canceled together, and it resumes', {
    timeout: 150_000,
  }, async () => {
    const printed = await runExample('sh', ['examples/shell/pause-and-cancel.sh'], {
      SKILLRUN_API_KEY: TEST_ADMIN_KEY,
    });
    const lines = printed.trim().split('\n');
    expect(lines[0]).toMatch(/^text_stats paused since \S+ by admin$/);
    expect(lines[1]).toMatch(/^EXECUTION\s+SKILL\s+STATUS/);
    expect(lines.slice(2, 4).map((line) => line.split(/\s+/).slice(1, 4))).toEqual([
      ['text_stats', '1.0.0', 'accepted'],
      ['text_stats', '1.0.0', 'accepted'],
    ]);
    expect(lines.slice(4)).toEqual(['canceled 2 executions', 'text_stats runs (not paused)']);
  });
});
