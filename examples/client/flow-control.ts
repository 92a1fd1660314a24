import { type Execution, SkillrunClient } from '@skillrun/client';

const client = new SkillrunClient({ baseUrl: process.env.SKILLRUN_URL ?? 'http://localhost:3000' });
const startOf = (execution: Execution) => Date.parse(execution.timestamps?.started_at ?? '');
const endOf = (execution: Execution) => Date.parse(execution.timestamps?.completed_at ?? '');

// customer_report runs one execution at a time per concurrency key (skill.json "concurrency":
// {"per_key": 1}): acme's second report waits for its first, globex's runs beside them.
const report = (customer: string) =>
  client.invoke('customer_report', { customer, pages: 5 }, { context: { concurrency_key: customer } });
const [first, second, other] = [await report('acme'), await report('acme'), await report('globex')];
// Until it can start, acme's second reads `accepted` with `waiting_for: "concurrency"`.
const [acme1, acme2, globex] = await Promise.all([
  client.wait(first),
  client.wait(second),
  client.wait(other),
]);
console.log(
  'acme in turn:',
  startOf(acme2) >= endOf(acme1),
  '| globex beside acme:',
  startOf(globex) < endOf(acme1),
);

// Debounced: calls with one key within delay_ms collapse into one execution, which runs once they
// stop, with the last call's inputs.
const debounce = { key: 'nightly', delay_ms: 1000 };
const calls = [];
for (const pages of [1, 2, 3]) {
  calls.push(
    await client.invoke('customer_report', { customer: 'initech', pages }, { context: { debounce } }),
  );
}
console.log('calls:', calls.length, '| executions:', new Set(calls.map((call) => call.executionId)).size);
console.log('debounced:', calls.map((call) => call.debounced ?? false).join(' '));
const [call] = calls;
if (call) console.log('ran with:', JSON.stringify((await client.wait(call)).output));
