import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSystem } from '../support/system';

const run = promisify(execFile);

/** The official MCP conformance suite's command line (@modelcontextprotocol/conformance). */
const SUITE = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);
/** The Node the suite runs on: the tests' own, or CONFORMANCE_NODE (a Node ≥ 22 binary beside an older one). */
const NODE = process.env.CONFORMANCE_NODE ?? process.execPath;
/** The suite uses fs.globSync, which Node has from 22 on. */
const SUITE_NODE_MAJOR = 22;

/**
 * Skills named as the suite's scenarios call their tools (tools-call-error's test_error_handling,
 * json-schema-2020-12's json_schema_2020_12_tool, whose input schema is the suite's example).
 */
const CONFORMANCE_SKILLS = fileURLToPath(new URL('../fixtures/conformance-skills', import.meta.url));

/** The server scenarios this gateway is held to: each runs against it and must pass, every check. */
const APPLY = [
  'server-initialize',
  'ping',
  'tools-list',
  'tools-call-error',
  'json-schema-2020-12',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

/** The server scenarios that test what this server does not offer, and why. */
const CANNOT_APPLY: Record<string, string> = {
  'logging-set-level':
    'no logging capability: what a skill logs belongs to its execution (GET .../logs), not to an MCP session',
  'tools-call-with-logging': 'no logging capability (as logging-set-level)',
  'completion-complete': 'completions complete prompt and resource-template arguments; neither is offered',
  'tools-call-simple-text':
    "it calls the suite's reference tool test_simple_text; our tools are the registry's skills (it would pass only on the error result for an unknown tool)",
  'tools-call-image': 'a skill answers JSON (structuredContent and its text): no image content',
  'tools-call-audio': 'a skill answers JSON: no audio content',
  'tools-call-embedded-resource': 'a skill answers JSON: no resource content, and no resources are offered',
  'tools-call-mixed-content': 'a skill answers JSON: no image or resource content to mix with text',
  'tools-call-with-progress':
    "it counts three progress reports 50 ms apart, and a worker writes a skill's progress at most every PROGRESS_INTERVAL_MS (reports in between are coalesced); progress notifications are tested in mcp.test.ts",
  'tools-call-sampling':
    'sampling/createMessage is a request from the server to the client during a call; skills run on workers and cannot make it',
  'tools-call-elicitation':
    'elicitation/create is a request from the server to the client; skills cannot make it',
  'elicitation-sep1034-defaults': 'elicitation is not offered (as tools-call-elicitation)',
  'elicitation-sep1330-enums': 'elicitation is not offered (as tools-call-elicitation)',
  'server-sse-polling':
    "it needs the suite's test_reconnection tool, whose stream the server closes mid-call to be resumed with Last-Event-ID; the gateway keeps no event store, so its streams are not resumable",
  'resources-list': 'no resources are offered: skills are tools',
  'resources-read-text': 'no resources are offered',
  'resources-read-binary': 'no resources are offered',
  'resources-templates-read': 'no resources are offered',
  'resources-subscribe': 'no resources are offered',
  'resources-unsubscribe': 'no resources are offered',
  'prompts-list': 'no prompts are offered: skills are tools',
  'prompts-get-simple': 'no prompts are offered',
  'prompts-get-with-args': 'no prompts are offered',
  'prompts-get-embedded-resource': 'no prompts are offered',
  'prompts-get-with-image': 'no prompts are offered',
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
}

/**
 * The official MCP conformance suite's server scenarios, run by its own command line against a real
 * gateway (and a worker for the skills the scenarios call). The suite needs Node ≥ 22: on an older
 * Node each test fails saying so, rather than being skipped.
 */
describe('the MCP conformance suite (@modelcontextprotocol/conformance) against /mcp', () => {
  let system: TestSystem;
  let results: string;
  let nodeVersion: string;

  /** Runs the suite's command line with `args`, on a Node it runs on; fails saying so on another. */
  function suite(args: string[]) {
    const major = Number(/^v(\d+)/.exec(nodeVersion)?.[1]);
    if (!(major >= SUITE_NODE_MAJOR)) {
      throw new Error(
        `The MCP conformance suite needs Node ≥ ${SUITE_NODE_MAJOR} (it uses fs.globSync), and ${NODE} is Node ${nodeVersion}: run the tests on Node 24, as CI does, or set CONFORMANCE_NODE to a Node ≥ ${SUITE_NODE_MAJOR} binary.`,
      );
    }
    return run(NODE, [SUITE, ...args], { timeout: 60_000 });
  }

  /** Every check of one scenario, as the suite records them in its results folder. */
  async function scenario(name: string): Promise<Check[]> {
    const output = mkdtempSync(join(results, `${name}-`));
    const url = `${system.gateway.url}/mcp`;
    // Exit code 1 is a scenario that failed a check: what its checks say is the answer.
    await suite(['server', '--url', url, '--scenario', name, '--output-dir', output]).catch(
      (error: { code?: unknown; stderr?: string }) => {
        if (error.code !== 1) throw new Error(`The suite could not run ${name}: ${error.stderr ?? error}`);
      },
    );
    const [folder] = readdirSync(output);
    if (folder === undefined) throw new Error(`The suite recorded nothing for ${name}`);
    return JSON.parse(readFileSync(join(output, folder, 'checks.json'), 'utf8')) as Check[];
  }

  beforeAll(async () => {
    results = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
    nodeVersion = (await run(NODE, ['--version'])).stdout.trim();
    system = await TestSystem.start();
    await system.addWorker({ SKILLS_DIR: CONFORMANCE_SKILLS });
  });
  afterAll(async () => {
    await system?.stop();
    if (results) rmSync(results, { recursive: true, force: true });
  });

  it.each(APPLY)('passes %s', async (name) => {
    const checks = await scenario(name);
    expect(checks.length).toBeGreaterThan(0);
    const unmet = checks.filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO');
    expect(unmet, JSON.stringify(unmet, null, 2)).toEqual([]);
  });

  it('has every server scenario of the installed suite either run here or said why it cannot apply', async () => {
    const { stdout } = await suite(['list', '--server']);
    const offered = [...stdout.matchAll(/^\s+- ([\w-]+) \[/gm)].map((match) => match[1]);
    expect(offered.length).toBeGreaterThan(0);
    const classified = [...APPLY, ...Object.keys(CANNOT_APPLY)];
    expect([...offered].sort()).toEqual(classified.sort());
  });
});
