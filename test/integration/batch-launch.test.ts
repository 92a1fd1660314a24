import { type LaunchRequest, newJobPayload, skillQueueName } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchKeys as keys, type ProxiedLauncher, startProxiedLauncher } from '../support/proxied-launcher';

// A batch's launch is one round trip: every record and every job is sent before any reply is
// needed. Proven without a clock: a proxy holds Redis' replies back on the launch's connection,
// and everything the launch writes is in Redis all the same; a launch that waited for a reply
// before sending more would leave some of it unsent until the replies are let through.

const skills = [
  { name: 'echo', version: '1.0.0', retry: 0 },
  { name: 'sleepy', version: '2.0.0', retry: 1 },
];

/** `count` launches over both skills and both priority queues (four queues). */
function requests(count: number, batchId: string): LaunchRequest[] {
  return Array.from({ length: count }, (_, index) => {
    const skill = skills[index % 2] as (typeof skills)[number];
    return {
      payload: newJobPayload({
        skill_id: skill.name,
        skill_version: skill.version,
        inputs: { index },
        caller: { id: 'tester', type: 'user' },
        trace_id: `trace-${index}`,
        priority: index % 4 < 2 ? 'normal' : 'high',
      }),
      skill,
      origin: { kind: 'batch-item', batchId },
    };
  });
}

describe('a bulk launch (ExecutionLauncher.launchAll)', () => {
  let proxied: ProxiedLauncher;
  let check: Redis;

  beforeAll(async () => {
    // Its command timeout longer than the replies are held.
    proxied = await startProxiedLauncher({ commandTimeoutMs: 60_000 });
    check = new Redis(proxied.redis.url);
  });
  afterAll(async () => {
    check?.disconnect();
    await proxied?.close();
  });

  /** How many of the launches' records and jobs Redis holds. */
  async function written(launches: LaunchRequest[]): Promise<number> {
    const pipeline = check.pipeline();
    for (const { payload } of launches) {
      pipeline.exists(keys.execution(payload.execution_id));
      pipeline.exists(
        keys.job(
          skillQueueName(payload.skill_id, payload.skill_version, payload.priority),
          payload.execution_id,
        ),
      );
    }
    const answers = (await pipeline.exec()) ?? [];
    return answers.reduce((sum, [, exists]) => sum + Number(exists), 0);
  }

  it('writes every record and every job of 200 executions before Redis has answered any of them', async () => {
    const { launcher, proxy } = proxied;
    // A launch before, answered: the connection knows the scripts and the queues, as a gateway's
    // does after its first invocation (else the launch would wait for a reply before it is sent).
    await launcher.launchAll(requests(8, 'warm-up'));
    const launches = requests(200, 'held');
    proxy.holdReplies();
    const launched = launcher.launchAll(launches);
    await expect.poll(() => written(launches)).toBe(400);
    proxy.releaseReplies();
    const outcomes = await launched;
    expect(outcomes.map((outcome) => ('execution' in outcome ? outcome.execution.status : outcome))).toEqual(
      Array(200).fill('accepted'),
    );
    expect(
      outcomes.map((outcome) => ('execution' in outcome ? outcome.execution.execution_id : undefined)),
    ).toEqual(launches.map(({ payload }) => payload.execution_id));
    expect(await check.hget(keys.execution(launches[0]?.payload.execution_id ?? ''), 'batch_id')).toBe(
      'held',
    );
  });
});
