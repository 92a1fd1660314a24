import { randomBytes } from 'node:crypto';
import { delimiter } from 'node:path';
import type { SkillDescriptor } from '@skillrun/core';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm-server';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { ADMIN_HEADERS, repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

// Two deployments exporting traces to one collector (a real OTLP/HTTP receiver): a consumer that
// runs composites, LLM skills and a skill registered from the provider (slow_lane), which it calls
// over HTTP.

const CONSUMER_SKILLS = ['composite-skills', 'skills', 'llm-skills'].map(
  (dir) => `${repoRoot}test/fixtures/${dir}`,
);
const SPAN_KIND = { server: 2, client: 3, producer: 4, consumer: 5 };

/** Exported within 100 ms of their end, so the test does not wait for the default 5 s batches. */
const tracing = (collector: OtlpReceiver, service: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
  OTEL_SERVICE_NAME: service,
  OTEL_BSP_SCHEDULE_DELAY: '100',
});

const newSpanId = () => randomBytes(8).toString('hex');
const newTraceId = () => randomBytes(16).toString('hex');

describe('OpenTelemetry traces across the whole path', () => {
  let collector: OtlpReceiver;
  let llm: FakeLlm;
  let provider: TestSystem;
  let consumer: TestSystem;

  beforeAll(async () => {
    collector = await OtlpReceiver.start();
    llm = await startFakeLlm({
      fallback: () => ({
        json: { summary: 'Short.', words: 1 },
        usage: { prompt_tokens: 30, completion_tokens: 5 },
      }),
    });
    provider = await TestSystem.start(tracing(collector, 'provider-gateway'));
    await provider.addWorker({
      ...tracing(collector, 'provider-worker'),
      SKILLS_DIR: `${repoRoot}test/fixtures/queue-skills`,
    });
    consumer = await TestSystem.start({
      ...tracing(collector, 'consumer-gateway'),
      SKILLS_DIR: CONSUMER_SKILLS.join(delimiter),
    });
    await consumer.addWorker({
      ...tracing(collector, 'consumer-worker'),
      OUTBOUND_ALLOW: '127.0.0.1/32',
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'fake-model',
    });
    const descriptor = (await provider.client.request<SkillDescriptor>('/skills/slow_lane')).body;
    const registered = await consumer.client.request('/skills', { json: descriptor, headers: ADMIN_HEADERS });
    expect(registered.status).toBe(201);
  });
  afterAll(async () => {
    await Promise.all([consumer?.stop(), provider?.stop()]);
    await Promise.all([collector?.close(), llm?.close()]);
  });

  /** Invokes with the client's own span as parent, waits for the end and for the spans of `services`. */
  async function traced(skillId: string, inputs: unknown, services: string[]) {
    const client = { traceId: newTraceId(), spanId: newSpanId() };
    const accepted = await consumer.client.invoke(
      skillId,
      inputs,
      {},
      {
        traceparent: `00-${client.traceId}-${client.spanId}-01`,
      },
    );
    expect(accepted.status).toBe(202);
    const { final } = await consumer.client.waitForEnd(skillId, String(accepted.body.execution_id));
    await expect
      .poll(() => new Set(collector.trace(client.traceId).map((span) => span.service)))
      .toEqual(new Set(services));
    // Spans of processes that ended their work may still be on their way: wait until none is new.
    await expect.poll(() => settledCount(client.traceId), { interval: 300 }).toBe(true);
    return { client, final, spans: collector.trace(client.traceId) };
  }

  let lastCount = -1;
  function settledCount(traceId: string): boolean {
    const count = collector.trace(traceId).length;
    const settled = count === lastCount;
    lastCount = count;
    return settled;
  }

  it('follows a composite from the invoke request through the queue to each step, as one tree', async () => {
    const { client, final, spans } = await traced('join_words', { text: 'one two' }, [
      'consumer-gateway',
      'consumer-worker',
    ]);
    expect(final.status).toBe('completed');
    // The execution names the trace it was exported under: the client's.
    expect(final.trace_id).toBe(client.traceId);

    const server = only(
      spans,
      (span) => span.kind === SPAN_KIND.server && span.service === 'consumer-gateway',
    );
    expect(server.parentSpanId).toBe(client.spanId);
    expect(server.attributes['http.route'] ?? server.name).toContain('/skills/:skillId/invoke');
    // Every other span hangs from one of the trace: nothing is cut off on the way.
    const ids = new Set(spans.map((span) => span.spanId));
    expect(spans.filter((span) => span !== server && !ids.has(span.parentSpanId ?? ''))).toEqual([]);

    // The gateway's enqueue → the composite's attempt on the worker → each step's enqueue → its attempt.
    const enqueued = spans.filter((span) => span.kind === SPAN_KIND.producer);
    const attempts = spans.filter((span) => span.kind === SPAN_KIND.consumer);
    expect(enqueued.map((span) => span.service)).toEqual(
      expect.arrayContaining(['consumer-gateway', 'consumer-worker', 'consumer-worker']),
    );
    const composite = enqueued.find((span) => span.service === 'consumer-gateway');
    expect(ancestorsOf(composite, spans)).toContain(server);
    for (const step of ['word_list', 'echo']) {
      const stepAttempt = attempts.find((span) =>
        String(span.attributes['bullmq.queue.name']).includes(step),
      );
      const chain = ancestorsOf(stepAttempt, spans);
      // A step's attempt descends from its enqueue by the composite's attempt, itself from the invoke.
      expect(
        chain.some((span) => span.kind === SPAN_KIND.producer && span.service === 'consumer-worker'),
      ).toBe(true);
      expect(chain).toContain(server);
    }
    // Redis commands show where the time went, within the spans that made them.
    expect(
      spans.some(
        (span) => span.attributes['db.system'] === 'redis' || span.attributes['db.system.name'] === 'redis',
      ),
    ).toBe(true);
  });

  it('carries the trace into a remote provider, whose gateway and worker continue it', async () => {
    const { client, final, spans } = await traced('slow_lane', { ms: 10 }, [
      'consumer-gateway',
      'consumer-worker',
      'provider-gateway',
      'provider-worker',
    ]);
    expect(final.status).toBe('completed');
    // The call that starts the remote execution (the worker then follows it with GET status).
    const call = only(
      spans,
      (span) =>
        span.kind === SPAN_KIND.client &&
        span.attributes['http.request.method'] === 'POST' &&
        String(span.attributes['url.full']).startsWith(provider.gateway.url),
    );
    const providerServer = spans.find(
      (span) =>
        span.kind === SPAN_KIND.server &&
        span.service === 'provider-gateway' &&
        span.parentSpanId === call.spanId,
    );
    expect(providerServer).toBeDefined();
    expect(final.trace_id).toBe(client.traceId);
  });

  it('shows an LLM call as a GenAI span with its model and token usage', async () => {
    const { final, spans } = await traced('tiny_summary', { text: 'Tracing is on.' }, [
      'consumer-gateway',
      'consumer-worker',
    ]);
    expect(final.status).toBe('completed');
    const chat = only(spans, (span) => span.name === 'chat fake-model');
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'fake-model',
      'gen_ai.usage.input_tokens': 30,
      'gen_ai.usage.output_tokens': 5,
    });
    // The HTTP request to the provider is its child; the attempt is its parent.
    expect(spans.some((span) => span.kind === SPAN_KIND.client && span.parentSpanId === chat.spanId)).toBe(
      true,
    );
    expect(ancestorsOf(chat, spans).some((span) => span.kind === SPAN_KIND.consumer)).toBe(true);
  });

  it('starts a trace of its own when the client sends none, and the status names it', async () => {
    const accepted = await consumer.client.invoke('echo', { text: 'untraced client' });
    const { final } = await consumer.client.waitForEnd('echo', String(accepted.body.execution_id));
    await expect
      .poll(() => collector.trace(final.trace_id).some((span) => span.kind === SPAN_KIND.consumer))
      .toBe(true);
    const server = only(collector.trace(final.trace_id), (span) => span.kind === SPAN_KIND.server);
    expect(server.parentSpanId).toBeUndefined();
  });
});

describe('without an OTLP endpoint', () => {
  it('traces nothing: jobs carry no trace context', async () => {
    const system = await TestSystem.start({ SKILLS_DIR: `${repoRoot}test/fixtures/skills` });
    await system.addWorker({ WORKER_CONCURRENCY: '1' });
    const redis = new Redis(system.redis.url);
    try {
      // The worker busy with the first, the second waits in its queue, where its options can be read.
      const traceparent = `00-${newTraceId()}-${newSpanId()}-01`;
      const invoke = () => system.client.invoke('sleepy', { ms: 1000 }, {}, { traceparent });
      const [busy, waiting] = [await invoke(), await invoke()];
      expect([busy.status, waiting.status]).toEqual([202, 202]);
      const jobKeys = await redis.keys(`{skillrun}:*:${String(waiting.body.execution_id)}`);
      const jobKey = jobKeys.find((key) => !key.includes(':exec:'));
      const options = JSON.parse((await redis.hget(String(jobKey), 'opts')) ?? '{}') as Record<
        string,
        unknown
      >;
      expect(Object.keys(options).length).toBeGreaterThan(0);
      expect(options).not.toHaveProperty('telemetry');
      expect(options).not.toHaveProperty('tm');
    } finally {
      redis.disconnect();
      await system.stop();
    }
  });
});

function only(spans: ReceivedSpan[], match: (span: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(match);
  expect(
    found,
    JSON.stringify(spans.map(({ service, name, kind }) => ({ service, name, kind }))),
  ).toHaveLength(1);
  return found[0] as ReceivedSpan;
}

/** The span's parent, its parent's parent, … as far as the trace holds them. */
function ancestorsOf(span: ReceivedSpan | undefined, spans: ReceivedSpan[]): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  let parent = spans.find((candidate) => candidate.spanId === span?.parentSpanId);
  while (parent) {
    chain.push(parent);
    const child = parent;
    parent = spans.find((candidate) => candidate.spanId === child.parentSpanId);
  }
  return chain;
}
