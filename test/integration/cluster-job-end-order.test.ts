import type { RedisCluster } from '@skillrun/redis-server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MonitoredCommand, monitorRedis, type RedisMonitor } from '../support/redis-monitor';
import { TestSystem } from '../support/system';

// On a Redis Cluster, ioredis sends each command again on its own after a lost connection (to a
// random master, which runs it or redirects it): a worker's outcome and BullMQ's end of the job,
// in flight together when the connection dropped, could run in either order, and a reader find the
// record `accepted` behind an ended job (a status gone backwards, seen once by the fault harness's
// cluster run). The worker's connection leaves that to the worker, which sends the outcome again,
// then the job's end. Here the master holding the executions pauses its writes as each body ends,
// the connections held there (the worker's end among them) are dropped, and MONITOR shows the order
// it ran the outcome and the job's end in once unpaused: with the client sending them again, 5 of
// 12 trials ran the job's end first.

const TRIALS = 12;
const BODY_MS = 300;

/** The clients a paused master holds on a script (`flags=b cmd=eval…`), by id. */
async function heldOnScripts(master: Redis): Promise<string[]> {
  const list = String(await master.client('LIST'));
  return list
    .split('\n')
    .filter((line) => / flags=\w*b/.test(line) && / cmd=eval(sha)? /.test(line))
    .map((line) => /^id=(\d+)/.exec(line)?.[1] ?? '')
    .filter(Boolean);
}

/** Where in what the master ran the first top-level script call that `matches`. */
function ranAt(ran: MonitoredCommand[], matches: (args: string[]) => boolean): number {
  return ran.findIndex(
    ({ args, source }) => source !== 'lua' && /^eval(sha)?$/i.test(args[0] ?? '') && matches(args),
  );
}

describe('a job ended on a Redis Cluster whose master drops the worker mid-end', () => {
  let system: TestSystem<RedisCluster>;
  let master: Redis;
  let monitor: RedisMonitor;
  const ran: MonitoredCommand[] = [];

  beforeAll(async () => {
    system = await TestSystem.startOnCluster();
    await system.addWorker({ WORKER_SKILLS: 'sleepy' });
    // At REDIS_SHARDS=1 every key of the service is in KEY_PREFIX's slot: one master holds them.
    const owner = await system.redis.masterOf('{skillrun}');
    master = new Redis(owner.url);
    monitor = await monitorRedis(owner.url, (command) => ran.push(command));
  }, 120_000);
  afterAll(async () => {
    monitor?.stop();
    master?.disconnect();
    await system?.stop();
  });

  it("runs each execution's outcome before BullMQ's end of its job", async () => {
    const ids: string[] = [];
    let dropped = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      const accepted = await system.client.invoke('sleepy', { ms: BODY_MS });
      expect(accepted.status).toBe(202);
      const id = String(accepted.body.execution_id);
      ids.push(id);
      await expect
        .poll(async () => (await system.client.status('sleepy', id)).status, {
          timeout: 20_000,
          interval: 10,
        })
        .toBe('running');
      await master.client('PAUSE', 20_000, 'WRITE');
      try {
        // The body ends meanwhile: its end is held at the master, then its connection dropped.
        await new Promise((resolve) => setTimeout(resolve, BODY_MS));
        await expect.poll(() => heldOnScripts(master), { timeout: 10_000 }).not.toEqual([]);
        for (const client of await heldOnScripts(master)) {
          await master.client('KILL', 'ID', client).catch(() => {});
          dropped++;
        }
      } finally {
        await master.client('UNPAUSE');
      }
      expect((await system.client.waitForEnd('sleepy', id)).final.status).toBe('completed');
    }
    expect(dropped).toBeGreaterThanOrEqual(TRIALS);

    const order = ids.map((id) => {
      const record = `{skillrun}:exec:${id}`;
      const outcome = ranAt(ran, (args) => args.includes(record) && args.includes('completed'));
      // BullMQ's moveToFinished (14 keys), on the job's key.
      const end = ranAt(ran, (args) => args[2] === '14' && args.some((arg) => arg.endsWith(`:${id}`)));
      return { id, outcome, end };
    });
    expect(order.filter(({ outcome, end }) => outcome < 0 || end < 0 || outcome > end)).toEqual([]);
  }, 300_000);
});
