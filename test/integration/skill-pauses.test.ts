import type { SkillDefinition } from '@skillrun/core';
import { hostedEntry, QueueRegistry, RedisKeys, SkillPauses, SkillRegistry } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../support/test-redis';

const PREFIX = '{pause-test}';

const definition = (version: string): SkillDefinition => ({
  name: 'held',
  description: 'Held by an operator.',
  category: 'test',
  input: { type: 'object' },
  output: { type: 'object' },
  mode: 'code',
  calls: [],
  version,
  tags: [],
  timeout: 1000,
  retry: 0,
});

describe('SkillPauses: the queues end as the flag says, however pauses, resumes and advertisements interleave', () => {
  let redis: TestRedis;
  let connection: Redis;
  let queues: QueueRegistry;
  let registry: SkillRegistry;
  let pauses: SkillPauses;

  beforeAll(async () => {
    redis = await startTestRedis();
    connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const keys = new RedisKeys(PREFIX);
    queues = new QueueRegistry(connection, PREFIX);
    registry = new SkillRegistry(connection, keys);
    pauses = new SkillPauses({ redis: connection, keys, queues, registry });
  });
  afterAll(async () => {
    await queues?.close();
    connection?.disconnect();
    await redis?.stop();
  });

  /** Each queue of each version, paused or not. */
  const pausedQueues = (versions: string[]) =>
    Promise.all(
      versions.flatMap((version) => queues.allOf('held', version)).map((queue) => queue.isPaused()),
    );

  /** A worker's first advertisement of a version, then its hold, as SkillAdvertiser.start does. */
  async function advertise(version: string): Promise<void> {
    const entry = hostedEntry(definition(version), {}, new Date().toISOString());
    await registry.advertise({
      workerId: `w-${version}`,
      entries: [entry],
      leaseMs: 60_000,
      scaleToZero: false,
    });
    await pauses.holdAdvertised([{ skill: 'held', version }]);
  }

  it('pauses every version and keeps the first pause; resumes them all', async () => {
    await advertise('1.0.0');
    await advertise('1.1.0');
    const first = await pauses.pause('held', 'ops', Date.parse('2030-01-01T00:00:00Z'));
    expect(first).toEqual({ paused_at: '2030-01-01T00:00:00.000Z', paused_by: 'ops' });
    expect(await pauses.pause('held', 'someone else')).toEqual(first);
    expect(await pausedQueues(['1.0.0', '1.1.0'])).toEqual([true, true, true, true]);
    // Advertised for the first time while paused: held from the start.
    await advertise('2.0.0');
    expect(await pausedQueues(['2.0.0'])).toEqual([true, true]);
    expect(await pauses.resume('held')).toBeUndefined();
    expect(await pausedQueues(['1.0.0', '1.1.0', '2.0.0'])).toEqual(Array(6).fill(false));
  });

  it('undoes a pause that lands after a resume: the slow one reads the flag again and follows it', async () => {
    // A gateway whose pause of the queues is held up until another gateway's resume has gone through.
    let land!: () => void;
    const landed = new Promise<void>((resolve) => {
      land = resolve;
    });
    let reached!: () => void;
    const held = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const slowQueues = {
      allOf: (skillId: string, version: string) =>
        queues.allOf(skillId, version).map((queue) => ({
          pause: async () => {
            reached();
            await landed;
            await queue.pause();
          },
          resume: () => queue.resume(),
        })),
    } as unknown as QueueRegistry;
    const slow = new SkillPauses({
      redis: connection,
      keys: new RedisKeys(PREFIX),
      queues: slowQueues,
      registry,
    });
    const pausing = slow.pause('held', 'slow');
    await held;
    expect(await pauses.resume('held')).toBeUndefined();
    land();
    expect(await pausing).toBeUndefined();
    expect(await pausedQueues(['1.0.0', '1.1.0', '2.0.0'])).toEqual(Array(6).fill(false));
  });

  it('ends every queue as the final flag, after rounds of concurrent pauses, resumes and advertisements', async () => {
    // Gateways and workers each on a connection of their own, as they are: their commands interleave.
    const actors = await Promise.all(
      [1, 2, 3, 4].map(async () => {
        const own = new Redis(redis.url, { maxRetriesPerRequest: null });
        const keys = new RedisKeys(PREFIX);
        const ownQueues = new QueueRegistry(own, PREFIX);
        return {
          own,
          ownQueues,
          pauses: new SkillPauses({
            redis: own,
            keys,
            queues: ownQueues,
            registry: new SkillRegistry(own, keys),
          }),
        };
      }),
    );
    const [a, b, c, d] = actors.map((actor) => actor.pauses) as [
      SkillPauses,
      SkillPauses,
      SkillPauses,
      SkillPauses,
    ];
    const versions = ['1.0.0', '1.1.0', '2.0.0'];
    for (let round = 0; round < 30; round++) {
      const fresh = `3.${round}.0`;
      versions.push(fresh);
      const actions = [
        () => a.pause('held', 'ops'),
        () => b.resume('held'),
        () => advertise(fresh),
        () => c.pause('held', 'ops'),
        () => d.resume('held'),
      ];
      // A different interleaving each round: rotated, and every other round reversed.
      const order = actions.map(
        (_, index) => actions[(index + round) % actions.length] as () => Promise<unknown>,
      );
      await Promise.all((round % 2 === 0 ? order : order.reverse()).map((action) => action()));
      const flag = (await pauses.of('held')) !== undefined;
      expect(await pausedQueues(versions), `round ${round}`).toEqual(Array(versions.length * 2).fill(flag));
    }
    for (const actor of actors) {
      await actor.ownQueues.close();
      actor.own.disconnect();
    }
  });
});
