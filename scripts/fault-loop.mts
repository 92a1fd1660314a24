// Runs the two fault scenarios (the Sentinels' harness and the Redis Cluster's) N times in a row,
// one at a time, and says what each run came to: `npm run test:fault-loop -- [N] [sentinel|cluster]`
// (N 20 by default; both scenarios unless one is named). Each run's output, and every process's
// log lines (FAULT_HARNESS_LOGS), are kept under `fault-loop/<start time>/`; a line per run says how
// many executions were acknowledged, lost (gone), stuck (not ended when the finals were read) and
// run twice, and whether the run passed; the last line totals them. Exits 1 if any run failed.
// As root, with `ip netns` (docs/reliability.md, "The fault harness"); 4 to 5 minutes a run.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const SCENARIOS = {
  sentinel: 'test/integration/fault-hosts-harness.test.ts',
  cluster: 'test/integration/fault-hosts-cluster.test.ts',
} as const;
type Scenario = keyof typeof SCENARIOS;

/** What a scenario prints of its durable half (summaryLine in test/support/fault-harness/fault-table.ts). */
interface Summary {
  acknowledged: number;
  lost: number;
  stuck: number;
  duplicated: number;
}

const args = process.argv.slice(2);
const runs = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 20);
const named = args.filter((arg): arg is Scenario => arg in SCENARIOS);
const scenarios: Scenario[] = named.length > 0 ? named : ['sentinel', 'cluster'];
const dir = join('fault-loop', new Date().toISOString().replace(/[:.]/g, '-'));

/** Runs one scenario, its output into `output`; resolves with its exit code. */
function runScenario(scenario: Scenario, output: string, logs: string): Promise<number> {
  const out = createWriteStream(output);
  const child = spawn('npx', ['vitest', 'run', '--project', 'integration', SCENARIOS[scenario]], {
    env: { ...process.env, FAULT_HARNESS_LOGS: logs, FAULT_HARNESS_LOSSES: '1', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  return new Promise((resolve) => child.on('close', (code) => out.end(() => resolve(code ?? 1))));
}

const SUMMARY = 'fault summary: ';

function summaryOf(output: string): Summary | undefined {
  // Vitest may color what a test prints: the line can start with escape sequences.
  const line = output.split('\n').find((each) => each.includes(SUMMARY));
  return line ? (JSON.parse(line.slice(line.indexOf(SUMMARY) + SUMMARY.length)) as Summary) : undefined;
}

const total = { runs: 0, passed: 0, acknowledged: 0, lost: 0, stuck: 0, duplicated: 0 };
await mkdir(dir, { recursive: true });
console.log(`fault loop: ${runs} run(s) of ${scenarios.join(' and ')}, output in ${dir}`);
for (let run = 1; run <= runs; run++) {
  for (const scenario of scenarios) {
    const output = join(dir, `${String(run).padStart(2, '0')}-${scenario}.log`);
    const started = Date.now();
    const code = await runScenario(
      scenario,
      output,
      join(dir, `${String(run).padStart(2, '0')}-${scenario}-logs`),
    );
    const summary = summaryOf(await readFile(output, 'utf8'));
    const passed = code === 0 && summary !== undefined;
    total.runs += 1;
    if (passed) total.passed += 1;
    for (const key of ['acknowledged', 'lost', 'stuck', 'duplicated'] as const)
      total[key] += summary?.[key] ?? 0;
    const counts = summary
      ? `acknowledged ${summary.acknowledged}, lost ${summary.lost}, stuck ${summary.stuck}, duplicated ${summary.duplicated}`
      : 'no summary (the faults did not run to the end)';
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(
      `run ${run} ${scenario}: ${counts}: ${passed ? 'pass' : `FAIL (exit ${code})`} (${seconds} s, ${output})`,
    );
  }
}
console.log(
  `total: ${total.passed} of ${total.runs} passed; acknowledged ${total.acknowledged}, lost ${total.lost}, stuck ${total.stuck}, duplicated ${total.duplicated}`,
);
process.exitCode = total.passed === total.runs ? 0 : 1;
