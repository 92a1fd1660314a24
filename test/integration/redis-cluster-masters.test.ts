import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Execution } from '@skillrun/core';
import { ShardMap } from '@skillrun/core/data';
import type { NodeStats, RedisCluster } from '@skillrun/redis-server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { readStream, type StreamEvent } from '../support/event-stream';
import { fixtureSkills } from '../support/service-process';
import { TestSystem } from '../support/system';
import { WebhookReceiver } from '../support/webhook-receiver';

const INVOCATIONS = 30;
const SHARDED = { REDIS_SHARDS: '3', OUTBOUND_ALLOW: '127.0.0.1/32' };
const compositeSkills = fileURLToPath(new URL('../fixtures/composite-skills', import.meta.url));

/** Each master's commands between two readings of nodeStats, by port. */
function commandsBetween(before: NodeStats[], after: NodeStats[]): Map<number, number> {
  return new Map(
    after.map(({ port, commands }) => [
      port,
      commands - (before.find((node) => node.port === port)?.commands ?? 0),
    ]),
  );
}

/** Runs INVOCATIONS executions of echo at once; answers their ends and each master's commands meanwhile. */
async function load(client: Client, cluster: RedisCluster) {
  const before = await cluster.nodeStats();
  const finals: Execution[] = await Promise.all(
    Array.from({ length: INVOCATIONS }, async (_, i) => (await client.run('echo', { text: `n${i}` })).final),
  );
  const commands = commandsBetween(before, await cluster.nodeStats());
  const total = [...commands.values()].reduce((sum, count) => sum + count, 0);
  return { finals, commands, total };
}

describe('a Redis Cluster of three masters', () => {
  let system: TestSystem<RedisCluster>;
  let receiver: WebhookReceiver;
  /** An execution made at REDIS_SHARDS=1: a legacy id, under KEY_PREFIX. */
  let legacy: Execution;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    system = await TestSystem.startOnCluster();
    await system.addWorker({ WORKER_SKILLS: 'echo' });
  });
  afterAll(async () => {
    await system?.stop();
    await receiver?.stop();
  });

  // At REDIS_SHARDS=1 (the default) every key carries KEY_PREFIX's hash tag, so one slot, on one
  // master, holds all executions (docs/design/sharding.md).
  it('at REDIS_SHARDS=1, runs executions, all of whose traffic goes to the one master serving {skillrun}', async () => {
    const { client, redis: cluster } = system;
    expect(cluster.nodes.filter((node) => node.role === 'master')).toHaveLength(3);
    // The first run registers the skill's queues and warms the connections: not part of the load.
    legacy = (await client.run('echo', { text: 'warm' })).final;
    expect(legacy.status).toBe('completed');
    const { finals, commands, total } = await load(client, cluster);

    expect(finals.map((final) => final.status)).toEqual(Array(INVOCATIONS).fill('completed'));
    const home = await cluster.masterOf('{skillrun}');
    expect(commands.get(home.port) ?? 0).toBeGreaterThan(0.9 * total);
  });

  it('at REDIS_SHARDS=3, spreads executions over the masters; ids of before still resolve', async () => {
    const { redis: cluster } = system;
    // The same deployment restarted with three shards.
    await Promise.all([system.gateway.process.stop(), ...system.workers.map((worker) => worker.stop())]);
    const gateway = await system.addGateway(SHARDED);
    await system.addWorker({
      SKILLS_DIR: [fixtureSkills, compositeSkills].join(delimiter),
      WORKER_SKILLS: 'echo,join_words,word_list',
      ...SHARDED,
    });
    const client = new Client(gateway.url);

    expect(await client.status('echo', legacy.execution_id)).toMatchObject({ status: 'completed' });
    expect((await client.run('echo', { text: 'warm' })).final.status).toBe('completed');
    const { finals, commands, total } = await load(client, cluster);
    expect(finals.map((final) => final.status)).toEqual(Array(INVOCATIONS).fill('completed'));

    // Each master holds some of the records, each on its vshard's tag.
    const shards = new ShardMap('{skillrun}', 3);
    const held = new Map<number, number>();
    for (const { execution_id: id } of finals) {
      expect(shards.vshardOf(id)).toBeDefined();
      const key = `${shards.tagOf(id)}:exec:${id}`;
      const master = await cluster.masterOf(key);
      const node = new Redis(master.url);
      expect(await node.exists(key)).toBe(1);
      node.disconnect();
      held.set(master.port, (held.get(master.port) ?? 0) + 1);
    }
    const masters = cluster.nodes.filter((node) => node.role === 'master');
    const spread = masters.map(({ port }) => ({
      port,
      records: held.get(port) ?? 0,
      commandsPercent: Math.round((100 * (commands.get(port) ?? 0)) / total),
    }));
    console.log('spread over the masters at REDIS_SHARDS=3', spread);
    for (const { records, commandsPercent } of spread) {
      expect(records).toBeGreaterThan(0);
      expect(commandsPercent).toBeLessThanOrEqual(60);
    }

    // Status, result and cancel by id.
    const [first] = finals as [Execution];
    expect(await client.status('echo', first.execution_id)).toMatchObject({ status: 'completed' });
    const result = await client.request(`/skills/echo/result/${first.execution_id}`);
    expect(result.status).toBe(200);
    const delayed = await client.invoke('echo', { text: 'later' }, { context: { delay_ms: 600_000 } });
    const delayedId = (delayed.body as { execution_id: string }).execution_id;
    expect(shards.vshardOf(delayedId)).toBeDefined();
    expect((await client.cancel('echo', delayedId)).status).toBe(200);
    expect(await client.status('echo', delayedId)).toMatchObject({ status: 'canceled' });

    // A webhook of an execution on a vshard: its stream is read too.
    const hooked = await client.invoke(
      'echo',
      { text: 'hook' },
      { webhook: { url: `${receiver.url}/hook` } },
    );
    expect(hooked.status, JSON.stringify(hooked.body)).toBe(202);
    const hookedId = (hooked.body as { execution_id: string }).execution_id;
    expect(shards.vshardOf(hookedId)).toBeDefined();
    await expect
      .poll(async () =>
        (await receiver.received()).filter((entry) => entry.body?.data?.execution_id === hookedId),
      )
      .toHaveLength(1);

    // A composite's steps run on its vshard: BullMQ's parent and child jobs share a slot.
    const { final: composite } = await client.run('join_words', { text: 'alpha beta' });
    expect(composite.status, JSON.stringify(composite.error)).toBe('completed');
    const vshard = shards.vshardOf(composite.execution_id);
    expect(vshard).toBeDefined();
    const steps = (composite.steps ?? []).filter((step) => step.execution_id !== undefined);
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) expect(shards.vshardOf(step.execution_id as string)).toBe(vshard);

    // A caller's event stream hears of its executions on every vshard, and resumes over them all.
    const sse = { 'x-api-key': await client.createKey('sse') };
    await client.invoke(
      'echo',
      { text: 'pending' },
      { caller: { id: 'sse', type: 'user' }, context: { delay_ms: 600_000 } },
      sse,
    );
    const spreadIds: string[] = [];
    const endedAll = (seen: StreamEvent[]) =>
      spreadIds.length === 3 &&
      spreadIds.every((id) =>
        seen.some((event) => event.execution.execution_id === id && event.execution.status === 'completed'),
      );
    const live = await readStream(`${gateway.url}/executions/events`, {
      headers: sse,
      until: (seen) => {
        if (seen.length === 1) {
          // Three in turn: one on each active vshard.
          void (async () => {
            for (const text of ['a', 'b', 'c'])
              spreadIds.push(await client.invokeAs('sse', 'echo', { text }, sse));
          })();
        }
        return endedAll(seen);
      },
    });
    expect(new Set(spreadIds.map((id) => shards.vshardOf(id))).size).toBe(3);
    // Each event's id is a position in the four streams (the prefix's and three vshards').
    for (const event of live.events) expect(event.id.split('_')).toHaveLength(4);
    const resumed = await readStream(`${gateway.url}/executions/events`, {
      headers: sse,
      lastEventId: live.events[0]?.id as string,
      until: endedAll,
    });
    expect(endedAll(resumed.events)).toBe(true);
  });
});
