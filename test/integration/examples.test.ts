import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/service-process';
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
      WORKER_SKILLS: 'text_stats,count_primes,memory_store,error_codes,hello,recall',
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
  async function runExample(command: string, args: string[]): Promise<string> {
    const { stdout } = await run(command, args, { cwd: repoRoot, env, timeout: 60_000 });
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

  it('agents/mcp-client.ts: lists the tools and calls text_stats through the queue', async () => {
    const lines = (await runExample(process.execPath, ['--import', 'tsx', 'examples/agents/mcp-client.ts']))
      .trim()
      .split('\n');
    expect(lines[0]).toMatch(/^tools: .*\btext_stats\b/);
    expect(lines.at(-1)).toMatch(/^structuredContent: \{"characters":9,"words":2,"sentences":1,/);
  });

  it('agents/a2a-client.ts: sends text_stats a message and reads the completed task', async () => {
    const lines = (await runExample(process.execPath, ['--import', 'tsx', 'examples/agents/a2a-client.ts']))
      .trim()
      .split('\n');
    expect(lines[0]).toMatch(/^task: [0-9a-f-]{36} TASK_STATE_COMPLETED$/);
    expect(lines[1]).toMatch(/^output: \{"characters":9,"words":2,"sentences":1,/);
  });
});
