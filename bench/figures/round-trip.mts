/**
 * Row 4: invoke → `completed` as the client sees it, one execution at a time. The service: `POST
 * invoke` with `Prefer: wait=5` (the gateway answers 200 once the execution ends), and, should it
 * answer 202 first, `GET status` with the same preference until the status is final, counting the
 * requests. Raw BullMQ (A(c)): `queue.add`, then QueueEvents' `completed` for that job.
 */
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type { BenchContext } from '../context.mjs';
import { mean, percentile } from '../stats.mjs';
import { JsonClient } from '../support/http.mjs';
import { BASELINE_QUEUE } from '../support/minimal.mjs';
import { JOB_DATA, jobOptions, openQueue } from '../support/raw-bullmq.mjs';
import { invocationBody } from '../support/service.mjs';

const FINAL = new Set(['completed', 'failed', 'timeout']);

interface Trips {
  ms: number[];
  requests: number[];
  notCompleted: number;
}

/** RFC 7240: answer when the execution ends, or after 5 s. */
const WAIT = { prefer: 'wait=5' };

async function serviceTrips(
  ctx: BenchContext,
  client: JsonClient,
  times: number,
  trips: Trips,
): Promise<void> {
  const { id } = ctx.skill;
  const body = invocationBody(id);
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    let answer = await client.send('POST', `/skills/${id}/invoke`, body, WAIT);
    ctx.service.invocations++;
    if (answer.status !== 200 && answer.status !== 202)
      throw new Error(`row 4: invoke answered ${answer.status}`);
    let requests = 1;
    while (answer.status === 202 || !FINAL.has(String(answer.body.status))) {
      answer = await client.send('GET', `/skills/${id}/status/${answer.body.execution_id}`, undefined, WAIT);
      requests++;
      if (answer.status !== 200) throw new Error(`row 4: status answered ${answer.status}`);
    }
    if (answer.body.status !== 'completed') trips.notCompleted++;
    trips.ms.push(performance.now() - started);
    trips.requests.push(requests);
  }
}

/** Resolves when QueueEvents reports the job completed; rejects on its failure or after 10 s. */
function completionOf(events: QueueEvents, id: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`row 4: job ${id} not completed in 10 s`)), 10_000);
    const onCompleted = ({ jobId }: { jobId: string }) => {
      if (jobId === id) finish();
    };
    const onFailed = ({ jobId, failedReason }: { jobId: string; failedReason: string }) => {
      if (jobId === id) finish(new Error(failedReason));
    };
    const finish = (error?: Error) => {
      clearTimeout(timer);
      events.off('completed', onCompleted);
      events.off('failed', onFailed);
      if (error) reject(error);
      else resolve();
    };
    events.on('completed', onCompleted);
    events.on('failed', onFailed);
  });
}

export async function roundTrip(ctx: BenchContext): Promise<void> {
  const { service, minimal, config } = ctx;
  await Promise.all([service.ensureDefaultWorker(), minimal.ensureDefaultWorker()]);
  const client = new JsonClient(service.url, { 'x-api-key': service.apiKey });
  // A connection of its own: the run's shared one has carried every earlier figure's queues.
  const connection = new Redis(ctx.redisUrl, { maxRetriesPerRequest: null });
  const queue = openQueue(connection, BASELINE_QUEUE);
  const events = new QueueEvents(BASELINE_QUEUE.name, {
    connection: { url: ctx.redisUrl },
    prefix: BASELINE_QUEUE.prefix,
  });
  await events.waitUntilReady();
  const rawTrips = async (times: number, into: number[]) => {
    for (let i = 0; i < times; i++) {
      const options = jobOptions();
      const started = performance.now();
      // Listened for before the add: a job removed on completion cannot be asked afterwards.
      const completed = completionOf(events, String(options.jobId));
      await queue.add('invoke', JOB_DATA, options);
      await completed;
      into.push(performance.now() - started);
    }
  };
  const warmUp = Math.min(50, config.roundTrips);
  await rawTrips(warmUp, []);
  await serviceTrips(ctx, client, warmUp, { ms: [], requests: [], notCompleted: 0 });
  const ours = { p50: [] as number[], p99: [] as number[] };
  const baseline = { p50: [] as number[], p99: [] as number[] };
  const requests: number[] = [];
  let notCompleted = 0;
  try {
    for (let rep = 1; rep <= config.repetitions; rep++) {
      const raw: number[] = [];
      await rawTrips(config.roundTrips, raw);
      const trips: Trips = { ms: [], requests: [], notCompleted: 0 };
      await serviceTrips(ctx, client, config.roundTrips, trips);
      baseline.p50.push(percentile(raw, 0.5));
      baseline.p99.push(percentile(raw, 0.99));
      ours.p50.push(percentile(trips.ms, 0.5));
      ours.p99.push(percentile(trips.ms, 0.99));
      requests.push(...trips.requests);
      notCompleted += trips.notCompleted;
      ctx.progress(
        `row 4 rep ${rep}: raw p50 ${baseline.p50.at(-1)?.toFixed(2)} p99 ${baseline.p99.at(-1)?.toFixed(2)} ms, ` +
          `service p50 ${ours.p50.at(-1)?.toFixed(2)} p99 ${ours.p99.at(-1)?.toFixed(2)} ms, ${mean(trips.requests).toFixed(1)} requests each`,
      );
    }
  } finally {
    client.close();
    await Promise.all([queue.close(), events.close()]);
    connection.disconnect();
  }
  if (notCompleted > 0)
    ctx.oddities.push(`row 4: ${notCompleted} sequential executions ended other than completed`);
  ctx.details.push(
    `Row 4, HTTP requests per execution (Prefer: wait=5): mean ${mean(requests).toFixed(2)}, ` +
      `p50 ${percentile(requests, 0.5)}, p99 ${percentile(requests, 0.99).toFixed(0)}, max ${Math.max(...requests)}` +
      ' (1 when POST invoke answers with the end; more when it answers 202 first and GET status follows).',
  );
  for (const [q, target] of [
    ['p50', 1.5],
    ['p99', 2],
  ] as const) {
    ctx.figures.push({
      row: `4 ${q}`,
      title: `invoke → completed seen by the client, sequential ×${config.roundTrips}, ${q}`,
      unit: 'ms',
      ours: ours[q],
      baseline: baseline[q],
      baselineName: 'A(c)',
      target: { kind: 'ratio-at-most', value: target },
    });
  }
}
