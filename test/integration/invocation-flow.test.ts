import type { SkillDescriptor } from '@skillrun/core';
import { skillQueueName } from '@skillrun/core/data';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSkills, repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

interface EchoOutput {
  seen: Record<string, unknown>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('invoke → status → result', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({ EXECUTION_TTL_SECONDS: '3600' });
    await system.addWorker({ SKILLS_DIR: `${repoRoot}skills:${fixtureSkills}` });
  });
  afterAll(() => system?.stop());

  it('runs a code skill through the three steps of spec 001', async () => {
    const { client } = system;
    const accepted = await client.invoke('text_stats', { text: 'One fish. Two fish! Red fish?' });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ status: 'accepted', skill_id: 'text_stats' });
    const executionId = String(accepted.body.execution_id);
    expect(executionId).toMatch(UUID);
    expect(accepted.headers.get('location')).toBe(
      `${system.gateway.url}/skills/text_stats/status/${executionId}`,
    );

    const { final, seen } = await client.waitForEnd('text_stats', executionId);
    expect(final.status).toBe('completed');
    expect(final.output).toMatchObject({ words: 6, sentences: 3 });
    expect((final.output as { top_words: unknown[] }).top_words[0]).toEqual({ word: 'fish', count: 3 });
    expect(final.attempts).toBe(1);
    expect(seen.at(-1)).toBe('completed');

    const result = await client.request(`/skills/text_stats/result/${executionId}`);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      execution_id: executionId,
      status: 'completed',
      output: final.output,
    });
    const { timestamps } = final;
    expect(Date.parse(timestamps.created_at)).toBeLessThanOrEqual(Date.parse(timestamps.started_at ?? ''));
    expect(Date.parse(timestamps.started_at ?? '')).toBeLessThanOrEqual(
      Date.parse(timestamps.completed_at ?? ''),
    );
    expect(timestamps.updated_at).toBe(timestamps.completed_at);
  });

  it('has the status readable the instant 202 is answered, and never moving backwards', async () => {
    const { client } = system;
    const order = ['accepted', 'running', 'completed'];
    for (let i = 0; i < 5; i++) {
      const accepted = await client.invoke('sleepy', { ms: 150 });
      const first = await client.status('sleepy', String(accepted.body.execution_id));
      expect(['accepted', 'running']).toContain(first.status);
      const { seen } = await client.waitForEnd('sleepy', String(accepted.body.execution_id));
      const ranks = [first.status, ...seen].map((status) => order.indexOf(status));
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      expect(ranks.at(-1)).toBe(2);
    }
  });

  it("publishes descriptors whose URLs are this gateway's working endpoints", async () => {
    const { client } = system;
    const listed = await client.request<{ skills: { id: string }[] }>('/skills');
    expect(listed.status).toBe(200);
    const ids = listed.body.skills.map((skill) => skill.id);
    expect(ids).toEqual(expect.arrayContaining(['memory_search', 'memory_store', 'text_stats', 'echo']));
    expect(ids).toEqual([...ids].sort());

    const described = await client.request<SkillDescriptor>('/skills/echo');
    expect(described.status).toBe(200);
    const descriptor = described.body;
    expect(descriptor).toMatchObject({
      protocol: { version: '1.0.0' },
      id: 'echo',
      version: '1.0.0',
      capability_type: 'api',
      access: 'public',
      auth: { type: 'none' },
      endpoint: { method: 'POST', content_type: 'application/json', timeout_ms: 5000 },
      output: { content_type: 'application/json', schema: { required: ['text', 'count'] } },
    });
    expect(descriptor.inputs).toContainEqual({
      name: 'text',
      type: 'string',
      required: true,
      schema: { minLength: 1, maxLength: 50 },
    });
    expect(descriptor.inputs).toContainEqual(
      expect.objectContaining({ name: 'count', required: false, default: 1 }),
    );

    // Follow the descriptor's own URLs, as a consumer that only read it would.
    expect(descriptor.endpoint.url).toBe(`${system.gateway.url}/skills/echo/invoke?version=1.0.0`);
    const invoked = await fetch(descriptor.endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        caller: { id: 'reader', type: 'user' },
        skill_id: 'echo',
        inputs: { text: 'hi' },
      }),
    });
    expect(invoked.status).toBe(202);
    const { execution_id } = (await invoked.json()) as { execution_id: string };
    await client.waitForEnd('echo', execution_id);
    const statusUrl = descriptor.endpoint.status_url.replace('{execution_id}', execution_id);
    const resultUrl = descriptor.endpoint.result_url.replace('{execution_id}', execution_id);
    expect(((await (await fetch(statusUrl)).json()) as { status: string }).status).toBe('completed');
    expect(((await (await fetch(resultUrl)).json()) as { output: { text: string } }).output.text).toBe('hi');
  });

  it('carries the trace id to the skill, its logs and the record, or makes one up', async () => {
    const { client } = system;
    const worker = system.workers[0];
    const given = await client.run('echo', { text: 'a' }, { context: { trace_id: 'trace-abc-123' } });
    expect(given.final.trace_id).toBe('trace-abc-123');
    expect((given.final.output as EchoOutput).seen.trace_id).toBe('trace-abc-123');
    await worker?.waitForLog((line) => line.trace_id === 'trace-abc-123' && line.msg === 'echoing');

    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const viaHeader = await client.invoke('echo', { text: 'b' }, {}, { traceparent });
    expect(viaHeader.body.trace_id).toBe('4bf92f3577b34da6a3ce929d0e0e4736');

    const generated = await client.invoke('echo', { text: 'c' });
    expect(generated.body.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const ended = await client.waitForEnd('echo', String(generated.body.execution_id));
    expect((ended.final.output as EchoOutput).seen).toMatchObject({
      trace_id: generated.body.trace_id,
      caller: { id: 'tester', type: 'service' },
      attempt: 1,
      execution_id: generated.body.execution_id,
      aborted: false,
    });
    expect(ended.final.progress).toBe(50);
  });

  it('keeps memory per caller, in Redis', async () => {
    const { client } = system;
    const as = (id: string) => ({ caller: { id, type: 'user' } });
    await client.run(
      'memory_store',
      { text: 'The deploy key rotates every Tuesday', tags: ['ops'] },
      as('alice'),
    );
    await client.run('memory_store', { text: 'Lunch is at noon on Tuesday' }, as('alice'));
    await client.run('memory_store', { text: 'Bob keeps his deploy notes here' }, as('bob'));

    const alice = await client.run('memory_search', { query: 'deploy key' }, as('alice'));
    expect(alice.final.status).toBe('completed');
    const results = (alice.final.output as { results: { snippet: string }[]; count: number }).results;
    expect(results[0]?.snippet).toBe('The deploy key rotates every Tuesday');
    expect(results.map((hit) => hit.snippet)).not.toContain('Bob keeps his deploy notes here');

    const carol = await client.run('memory_search', { query: 'deploy' }, as('carol'));
    expect(carol.final.output).toEqual({ results: [], count: 0 });
  });

  it('fails an execution whose output breaks the output schema, without retrying it', async () => {
    const { final } = await system.client.run('bad_output', {});
    expect(final.status).toBe('failed');
    expect(final.error).toMatchObject({ code: 'INVALID_OUTPUT', recoverable: false });
    expect(final.error?.details).toContainEqual(
      expect.objectContaining({ path: '/output/n', message: expect.stringMatching(/^must be integer/) }),
    );
    expect(final.attempts).toBe(1);
    expect(final.output).toBeUndefined();
  });

  it('keeps records under their own keys with a TTL and removes BullMQ job data when done', async () => {
    const { final } = await system.client.run('echo', { text: 'gone' });
    const redis = new Redis(system.redis.url);
    const queue = new Queue(skillQueueName('echo', '1.0.0'), { connection: redis, prefix: '{skillrun}' });
    try {
      const ttl = await redis.ttl(`{skillrun}:exec:${final.execution_id}`);
      expect(ttl).toBeGreaterThan(3500);
      expect(ttl).toBeLessThanOrEqual(3600);
      await expect.poll(() => queue.getJob(final.execution_id), { timeout: 10_000 }).toBeUndefined();
      const counts = await queue.getJobCounts('completed', 'failed');
      expect(counts).toEqual({ completed: 0, failed: 0 });
    } finally {
      await queue.close();
      redis.disconnect();
    }
  });
});
