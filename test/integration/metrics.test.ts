import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSkills, type ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

const CALLER = { id: 'metrics-caller-5c1e', type: 'service' };
const INVOKE_ROUTE = '/skills/:skillId/invoke';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus' text format, one sample per line (comments skipped). */
function parseSamples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => [name, value]),
      );
      return { name: match[1] as string, labels: labels as Record<string, string>, value: Number(match[3]) };
    });
}

/** A scrape: the sum of the samples of a metric whose labels include `labels`; undefined when none. */
class Scrape {
  readonly samples: Sample[];

  constructor(readonly text: string) {
    this.samples = parseSamples(text);
  }

  value(name: string, labels: Record<string, string> = {}): number | undefined {
    const matching = this.samples.filter(
      (sample) =>
        sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
    return matching.length === 0 ? undefined : matching.reduce((sum, sample) => sum + sample.value, 0);
  }

  labelValues(label: string): Set<string> {
    return new Set(this.samples.flatMap((sample) => sample.labels[label] ?? []));
  }
}

async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return new Scrape(await response.text());
}

/** `promtool check metrics` lints the text (naming, units, types); a finding fails the test. */
function expectPromtoolPasses(text: string): void {
  const result = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  expect(result.error).toBeUndefined();
  expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
}

function metricsUrlOf(worker: ServiceProcess): string {
  const ready = worker.logs.find((line) => line.msg === 'worker ready');
  return `http://127.0.0.1:${ready?.metrics_port}/metrics`;
}

describe('metrics, scraped after real traffic', () => {
  let system: TestSystem;
  let workerMetrics: string;
  const executionIds: string[] = [];
  const traceIds: string[] = [];

  async function run(skill: string, inputs: unknown, context?: Record<string, unknown>) {
    const { final } = await system.client.run(skill, inputs, {
      caller: CALLER,
      ...(context ? { context } : {}),
    });
    executionIds.push(final.execution_id);
    traceIds.push(final.trace_id);
    return final;
  }

  async function invokeRaw(path: string, body: string, contentType = 'application/json') {
    const response = await fetch(`${system.gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    return response.status;
  }

  beforeAll(async () => {
    system = await TestSystem.start({ BODY_LIMIT_BYTES: '4096' });
    workerMetrics = metricsUrlOf(await system.addWorker());

    for (const text of ['one', 'two', 'three'])
      expect((await run('echo', { text })).status).toBe('completed');
    const flaky = await run('flaky', { succeed_on: 2 });
    expect([flaky.status, flaky.attempts]).toEqual(['completed', 2]);
    expect((await run('thrower', {})).status).toBe('failed');
    expect((await run('fatal', {})).status).toBe('failed');
    expect((await run('sleepy', { ms: 4000 }, { timeout_ms: 300 })).status).toBe('timeout');

    const { client } = system;
    expect((await client.invoke('echo', {}, { caller: CALLER })).status).toBe(400); // MISSING_REQUIRED_PARAM
    expect((await client.invoke('echo', { text: 'x', count: 'many' }, { caller: CALLER })).status).toBe(400);
    expect((await client.invoke('no_such_skill', {}, { caller: CALLER })).status).toBe(404);
    expect(await invokeRaw('/skills/echo/invoke', '{"caller": ')).toBe(400);
    expect(await invokeRaw('/skills/echo/invoke', 'hello', 'text/plain')).toBe(415);
    expect(await invokeRaw('/skills/echo/invoke', JSON.stringify({ pad: 'x'.repeat(10_000) }))).toBe(413);
    expect((await client.request('/nowhere')).status).toBe(404);
  });
  afterAll(() => system?.stop());

  it("the gateway's: requests by route template and status, invocations accepted by skill and rejected by reason", async () => {
    const gateway = await scrape(`${system.gateway.url}/metrics`);
    for (const [skill, count] of Object.entries({ echo: 3, flaky: 1, thrower: 1, fatal: 1, sleepy: 1 })) {
      expect(gateway.value('skillrun_invocations_accepted_total', { skill }), skill).toBe(count);
    }
    expect(gateway.labelValues('skill')).toEqual(new Set(['echo', 'flaky', 'thrower', 'fatal', 'sleepy']));
    const rejected = {
      MISSING_REQUIRED_PARAM: 1,
      INVALID_INPUT: 2,
      SKILL_NOT_FOUND: 1,
      UNSUPPORTED_MEDIA_TYPE: 1,
      PAYLOAD_TOO_LARGE: 1,
    };
    for (const [reason, count] of Object.entries(rejected)) {
      expect(gateway.value('skillrun_invocations_rejected_total', { reason }), reason).toBe(count);
    }
    expect(gateway.value('skillrun_invocations_rejected_total')).toBe(6);
    // Every known reason shows from the start, at 0 until it happens, so rate() sees its first one.
    expect(gateway.value('skillrun_invocations_rejected_total', { reason: 'SERVICE_UNAVAILABLE' })).toBe(0);
    expect(gateway.value('skillrun_invocations_rejected_total', { reason: 'UNKNOWN' })).toBe(0);
    // So do the server error statuses of every route that has answered.
    for (const status of ['500', '503', '504']) {
      expect(gateway.value('skillrun_http_requests_total', { route: INVOKE_ROUTE, status }), status).toBe(0);
    }

    const accepted = { method: 'POST', route: INVOKE_ROUTE, status: '202' };
    expect(gateway.value('skillrun_http_requests_total', accepted)).toBe(7);
    expect(gateway.value('skillrun_http_request_duration_seconds_count', accepted)).toBe(7);
    expect(gateway.value('skillrun_http_request_duration_seconds_bucket', { ...accepted, le: '+Inf' })).toBe(
      7,
    );
    expect(gateway.value('skillrun_http_requests_total', { route: INVOKE_ROUTE, status: '404' })).toBe(1);
    expect(gateway.value('skillrun_http_requests_total', { route: INVOKE_ROUTE, status: '415' })).toBe(1);
    expect(gateway.value('skillrun_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    const polls = { method: 'GET', route: '/skills/:skillId/status/:executionId', status: '200' };
    expect(gateway.value('skillrun_http_requests_total', polls)).toBeGreaterThanOrEqual(7);
    for (const route of gateway.labelValues('route')) {
      expect(route === 'unmatched' || /^\/[\w/:.-]*$/.test(route), route).toBe(true);
    }

    expect(gateway.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(gateway.value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expectBoundedLabels(gateway.text);
    expectPromtoolPasses(gateway.text);
  });

  it("the worker's: executions by final status, durations, queue wait, attempts, retries, timeouts, workers", async () => {
    const worker = await scrape(workerMetrics);
    const executions = {
      echo: { completed: 3, failed: 0, timeout: 0 },
      flaky: { completed: 1, failed: 0, timeout: 0 },
      thrower: { completed: 0, failed: 1, timeout: 0 },
      fatal: { completed: 0, failed: 1, timeout: 0 },
      sleepy: { completed: 0, failed: 0, timeout: 1 },
      busy_loop: { completed: 0, failed: 0, timeout: 0 },
    };
    for (const [skill, byStatus] of Object.entries(executions)) {
      for (const [status, count] of Object.entries(byStatus)) {
        expect(worker.value('skillrun_executions_total', { skill, status }), `${skill} ${status}`).toBe(
          count,
        );
        expect(
          worker.value('skillrun_execution_duration_seconds_count', { skill, status }) ?? 0,
          `${skill} ${status} duration`,
        ).toBe(count);
      }
    }
    const perSkill = {
      attempts: { echo: 3, flaky: 2, thrower: 1, fatal: 1, sleepy: 1, busy_loop: 0 },
      retries: { echo: 0, flaky: 1, thrower: 0, fatal: 0, sleepy: 0, busy_loop: 0 },
      timeouts: { echo: 0, flaky: 0, thrower: 0, fatal: 0, sleepy: 1, busy_loop: 0 },
    };
    for (const [metric, counts] of Object.entries(perSkill)) {
      for (const [skill, count] of Object.entries(counts)) {
        expect(worker.value(`skillrun_${metric}_total`, { skill }), `${metric} ${skill}`).toBe(count);
      }
    }
    // Queue wait is measured once per execution, on its first attempt.
    for (const [skill, count] of Object.entries({ echo: 3, flaky: 1, thrower: 1, fatal: 1, sleepy: 1 })) {
      expect(worker.value('skillrun_queue_wait_seconds_count', { skill }), skill).toBe(count);
    }
    // Durations run from the first start: past the retry's backoff (100 ms), past the deadline (300 ms).
    const flakySeconds = worker.value('skillrun_execution_duration_seconds_sum', { skill: 'flaky' });
    expect(flakySeconds).toBeGreaterThanOrEqual(0.1);
    const sleepySeconds = worker.value('skillrun_execution_duration_seconds_sum', { skill: 'sleepy' });
    expect(sleepySeconds).toBeGreaterThanOrEqual(0.3);

    expect(worker.value('skillrun_workers_alive')).toBe(1);
    for (const state of ['waiting', 'active', 'delayed', 'failed', 'waiting-children']) {
      expect(worker.value('skillrun_queue_jobs', { skill: 'echo', version: '1.0.0', state }), state).toBe(0);
    }
    expect(worker.value('skillrun_queue_age_seconds', { skill: 'echo', version: '1.0.0' })).toBe(0);
    for (const check of ['redis', 'queue', 'eviction_policy']) {
      expect(worker.value('skillrun_readiness_check', { check, status: 'ok' }), check).toBe(1);
      expect(worker.value('skillrun_readiness_check', { check, status: 'failed' }), check).toBe(0);
    }
    // Every hosted skill shows (at 0 when idle), and nothing else does.
    expect(worker.labelValues('skill')).toEqual(new Set(readdirSync(fixtureSkills)));

    expect(worker.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(worker.value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expectBoundedLabels(worker.text);
    expectPromtoolPasses(worker.text);
  });

  it('shows the jobs waiting in a queue, read from BullMQ at scrape time', async () => {
    const connection = new Redis(system.redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue('skill.sleepy@1.0.0', { connection, prefix: '{skillrun}' });
    try {
      await queue.pause();
      const startedAt = Date.now();
      const invoked = await Promise.all(
        ['first', 'second'].map((label) =>
          system.client.invoke('sleepy', { ms: 10, label }, { caller: CALLER }),
        ),
      );
      expect(invoked.map((answer) => answer.status)).toEqual([202, 202]);
      const waiting = { skill: 'sleepy', version: '1.0.0', state: 'waiting' };
      const before = await scrape(workerMetrics);
      expect(before.value('skillrun_queue_jobs', waiting)).toBe(2);
      const scrapedAt = Date.now();
      // The age of the oldest job in line: since it was queued, not longer than the test has waited.
      const age = before.value('skillrun_queue_age_seconds', { skill: 'sleepy', version: '1.0.0' });
      expect(age).toBeGreaterThan(0);
      expect(age).toBeLessThanOrEqual((scrapedAt - startedAt) / 1000 + 0.001);

      await queue.resume();
      for (const answer of invoked) {
        const id = String(answer.body.execution_id);
        executionIds.push(id);
        expect((await system.client.waitForEnd('sleepy', id)).final.status).toBe('completed');
      }
      // The worker counts an end when the reply to its write is back: a client may see the end first.
      const completed = { skill: 'sleepy', status: 'completed' };
      await expect
        .poll(async () => (await scrape(workerMetrics)).value('skillrun_executions_total', completed))
        .toBe(2);
      const after = await scrape(workerMetrics);
      expect(after.value('skillrun_queue_jobs', waiting)).toBe(0);
      expect(after.value('skillrun_queue_age_seconds', { skill: 'sleepy', version: '1.0.0' })).toBe(0);
    } finally {
      await queue.resume();
      await queue.close();
      connection.disconnect();
    }
  });

  it('shows the readiness checks, an eviction policy that may drop jobs as failed', async () => {
    const connection = new Redis(system.redis.url, { maxRetriesPerRequest: null });
    try {
      await connection.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const evicting = await scrape(workerMetrics);
      const policy = (status: string) => ({ check: 'eviction_policy', status });
      expect(evicting.value('skillrun_readiness_check', policy('failed'))).toBe(1);
      expect(evicting.value('skillrun_readiness_check', policy('ok'))).toBe(0);
      expect(evicting.value('skillrun_readiness_check', { check: 'redis', status: 'ok' })).toBe(1);
    } finally {
      await connection.config('SET', 'maxmemory-policy', 'noeviction');
      connection.disconnect();
    }
    const restored = await scrape(workerMetrics);
    expect(restored.value('skillrun_readiness_check', { check: 'eviction_policy', status: 'ok' })).toBe(1);
  });

  it("counts a batch's items by outcome, each an invocation accepted or rejected as well", async () => {
    const before = await scrape(`${system.gateway.url}/metrics`);
    // Both outcomes show from the start, at 0 until a batch comes, so rate() sees the first one.
    expect(before.value('skillrun_batch_items_total', { outcome: 'accepted' })).toBe(0);
    expect(before.value('skillrun_batch_items_total', { outcome: 'rejected' })).toBe(0);
    const accepted = (scraped: Scrape) =>
      scraped.value('skillrun_invocations_accepted_total', { skill: 'echo' });
    const missing = (scraped: Scrape) =>
      scraped.value('skillrun_invocations_rejected_total', { reason: 'MISSING_REQUIRED_PARAM' });

    const batch = await system.client.request<{
      executions: ({ execution_id: string } | { error: unknown })[];
    }>('/batches', {
      json: {
        caller: CALLER,
        items: [
          { skill_id: 'echo', inputs: { text: 'first' } },
          { skill_id: 'echo', inputs: {} },
          { skill_id: 'echo', inputs: { text: 'third' } },
        ],
      },
    });
    expect(batch.status).toBe(202);
    expect(batch.body.executions.map((slot) => 'execution_id' in slot)).toEqual([true, false, true]);
    for (const slot of batch.body.executions)
      if ('execution_id' in slot) executionIds.push(slot.execution_id);

    const after = await scrape(`${system.gateway.url}/metrics`);
    expect(after.value('skillrun_batch_items_total', { outcome: 'accepted' })).toBe(2);
    expect(after.value('skillrun_batch_items_total', { outcome: 'rejected' })).toBe(1);
    expect((accepted(after) ?? 0) - (accepted(before) ?? 0)).toBe(2);
    expect((missing(after) ?? 0) - (missing(before) ?? 0)).toBe(1);
    expectBoundedLabels(after.text);
    expectPromtoolPasses(after.text);
  });

  /** No execution id, trace id or caller anywhere in the text: labels stay bounded. */
  function expectBoundedLabels(text: string): void {
    expect(executionIds.length).toBeGreaterThan(0);
    for (const id of [...executionIds, ...traceIds, CALLER.id]) expect(text).not.toContain(id);
  }
});

describe('metrics of composites, which run again each time their steps end', () => {
  const compositeSkills = fileURLToPath(new URL('../fixtures/composite-skills', import.meta.url));
  let system: TestSystem;
  let workerMetrics: string;

  beforeAll(async () => {
    system = await TestSystem.start({
      SKILLS_DIR: [fixtureSkills, compositeSkills].join(delimiter),
      COMPOSITE_SWEEP_INTERVAL_MS: '100',
    });
    workerMetrics = metricsUrlOf(await system.addWorker());
  });
  afterAll(() => system?.stop());

  it('counts one attempt and one end per execution, however many times it resumed', async () => {
    expect((await system.client.run('join_words', { text: 'alpha beta' })).final.status).toBe('completed');
    expect((await system.client.run('code_composite', { text: 'first last' })).final.status).toBe(
      'completed',
    );
    // Its step sleeps past the composite's 1 s deadline: the composite times out, whoever notices.
    expect((await system.client.run('deadline_pipeline', { ms: 4000 })).final.status).toBe('timeout');

    // The worker counts an end when the reply to its write comes back (and, for a composite, after
    // one more read for its first start): a client may see the end that write published first, and
    // the step times out at the same deadline as its composite, on its own.
    const timeouts = async () => {
      const scraped = await scrape(workerMetrics);
      return ['deadline_pipeline', 'sleepy'].map((skill) =>
        scraped.value('skillrun_executions_total', { skill, status: 'timeout' }),
      );
    };
    await expect.poll(timeouts).toEqual([1, 1]);
    const worker = await scrape(workerMetrics);
    for (const skill of ['join_words', 'code_composite']) {
      expect(worker.value('skillrun_attempts_total', { skill }), skill).toBe(1);
      expect(worker.value('skillrun_queue_wait_seconds_count', { skill }), skill).toBe(1);
      expect(worker.value('skillrun_executions_total', { skill, status: 'completed' }), skill).toBe(1);
      expect(worker.value('skillrun_execution_duration_seconds_count', { skill }), skill).toBe(1);
    }
    // Steps are executions of their own: join_words echoes once, code_composite twice.
    expect(worker.value('skillrun_attempts_total', { skill: 'echo' })).toBe(3);
    expect(worker.value('skillrun_executions_total', { skill: 'word_list', status: 'completed' })).toBe(2);

    const deadline = { skill: 'deadline_pipeline' };
    expect(worker.value('skillrun_attempts_total', deadline)).toBe(1);
    expect(worker.value('skillrun_timeouts_total', deadline)).toBe(1);
    expect(worker.value('skillrun_execution_duration_seconds_sum', deadline)).toBeGreaterThanOrEqual(1);
    expectPromtoolPasses(worker.text);
  });
});
