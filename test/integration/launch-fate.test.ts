import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { type ExecutionLauncher, newJobPayload, QueueRegistry, skillQueueName } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  launchKeys as keys,
  LAUNCH_PREFIX,
  type ProxiedLauncher,
  startProxiedLauncher,
} from '../support/proxied-launcher';
import type { TcpProxy } from '../support/tcp-proxy';
import type { TestRedis } from '../support/test-redis';

// A launch Redis applied and wrote to its append-only file, whose reply the gateway never got
// because Redis died just then and came back from that file: the gateway's connection and Redis'
// own file, as in production, the reply's loss made certain by a proxy that drops Redis' answers
// on the launch's connection, Redis killed once the launch is in it.

const skill = { name: 'echo', version: '1.0.0', retry: 0 };

describe('the fate of a launch whose reply went with Redis', () => {
  let proxied: ProxiedLauncher;
  let redis: TestRedis;
  let proxy: TcpProxy;
  let connection: Redis;
  let launcher: ExecutionLauncher;

  beforeAll(async () => {
    // Redis keeps its append-only file: what it applied comes back when it restarts.
    proxied = await startProxiedLauncher({ persistent: true });
    ({ redis, proxy, connection, launcher } = proxied);
  });
  afterAll(async () => {
    await proxied?.close();
  });

  // A delayed one too: its job, in the delayed set, has not been taken by any worker either.
  it.each([
    { kind: 'starting at once', delayMs: undefined },
    { kind: 'delayed', delayMs: 60_000 },
  ])(
    'takes it back once Redis restarts from its file, so that a refused launch never runs ($kind)',
    async ({ delayMs }) => {
      // Connected again after the previous case's restart.
      if (connection.status !== 'ready') await once(connection, 'ready');
      const scheduled = delayMs === undefined ? {} : { start: { afterMs: delayMs } };
      const payload = newJobPayload({
        skill_id: skill.name,
        skill_version: skill.version,
        inputs: { text: 'lost reply' },
        caller: { id: 'tester', type: 'user' },
        trace_id: 'trace-lost-reply',
        priority: 'normal',
      });
      const check = new Redis(redis.url);
      const jobKey = keys.job(skillQueueName(skill.name, skill.version), payload.execution_id);
      // A launch before, answered: the connection knows the scripts and the queue, as a gateway's
      // does after its first invocation (else the launch would wait for replies before it is sent).
      await launcher.launch({ payload: { ...payload, execution_id: randomUUID() }, skill });
      proxy.dropReplies();
      const launched = launcher.launch({ payload, skill, ...scheduled });
      // Redis has applied the launch (so its file has it) when it dies, for longer than a second.
      await expect.poll(() => check.exists(jobKey), { interval: 5 }).toBe(1);
      check.disconnect();
      await redis.kill();
      const restarted = new Promise((resolve) => setTimeout(resolve, 1500)).then(() => redis.restart());

      await expect(launched).rejects.toThrow();

      await restarted;
      const after = new Redis(redis.url);
      try {
        const queue = new QueueRegistry(after, LAUNCH_PREFIX).for(skill.name, skill.version, 'normal');
        expect(await queue.getJobState(payload.execution_id)).toBe('unknown');
        expect(await after.exists(keys.execution(payload.execution_id))).toBe(0);
        await queue.close();
      } finally {
        after.disconnect();
      }
    },
  );

  it('takes back each launch of a bulk the same way: none of a refused batch runs', async () => {
    const payloads = Array.from({ length: 20 }, (_, index) =>
      newJobPayload({
        skill_id: skill.name,
        skill_version: skill.version,
        inputs: { text: `lost bulk ${index}` },
        caller: { id: 'tester', type: 'user' },
        trace_id: `trace-lost-bulk-${index}`,
        priority: 'normal',
      }),
    );
    const jobKeys = payloads.map(({ execution_id }) =>
      keys.job(skillQueueName(skill.name, skill.version), execution_id),
    );
    // Answered first, as above (the connection may be a new one since the restart).
    await expect
      .poll(async () => {
        const [warm] = await launcher.launchAll([
          { payload: { ...(payloads[0] as (typeof payloads)[number]), execution_id: randomUUID() }, skill },
        ]);
        return warm !== undefined && 'execution' in warm;
      })
      .toBe(true);
    const check = new Redis(redis.url);
    proxy.dropReplies();
    const launched = launcher.launchAll(payloads.map((payload) => ({ payload, skill })));
    await expect
      .poll(async () => (await check.exists(...jobKeys)) === jobKeys.length, { interval: 5 })
      .toBe(true);
    check.disconnect();
    await redis.kill();
    const restarted = new Promise((resolve) => setTimeout(resolve, 1500)).then(() => redis.restart());

    const outcomes = await launched;
    expect(outcomes.every((outcome) => 'refused' in outcome)).toBe(true);

    await restarted;
    const after = new Redis(redis.url);
    try {
      expect(await after.exists(...jobKeys)).toBe(0);
      expect(await after.exists(...payloads.map(({ execution_id }) => keys.execution(execution_id)))).toBe(0);
    } finally {
      after.disconnect();
    }
  });
});
