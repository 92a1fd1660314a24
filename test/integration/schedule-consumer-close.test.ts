import { RedisLiveness, SCHEDULE_QUEUE, SCHEDULE_TICK, type ScheduleTick } from '@skillrun/core/data';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduleConsumer } from '../../apps/gateway/src/schedules/schedule-consumer';
import { capturedLogger } from '../support/captured-logger';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// A gateway's stop closes its consumer of the schedules queue (a BullMQ Worker), which waits for
// the due times under way. BullMQ's close can wait for good (on a due time that never ends, and, in
// the cluster fault harness, on a blocking connection a failover left behind: its issues 4065 and
// 4656 name such waits), and the gateway then met its 30 s deadline and exited 1. The consumer
// waits a bound, then lets the due time go (another gateway runs it once its lock expires).

const PREFIX = '{schedule-close-test}';

describe("a gateway's schedules consumer at a stop", () => {
  let redis: TestRedis;
  let connection: Redis;
  const { logger, lines } = capturedLogger();

  beforeAll(async () => {
    redis = await startTestRedis();
    connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    connection?.disconnect();
    await redis?.stop();
  });

  function consumer(run: () => Promise<void>): ScheduleConsumer {
    const target = { url: redis.url };
    return new ScheduleConsumer({
      runner: { run },
      target,
      liveness: new RedisLiveness({ intervalMs: 1_000, target }),
      prefix: PREFIX,
      logger,
    });
  }

  async function dueNow(): Promise<void> {
    const queue = new Queue<ScheduleTick>(SCHEDULE_QUEUE, { connection, prefix: PREFIX });
    await queue.add(SCHEDULE_TICK, { schedule_id: 'sch_close' });
    await queue.close();
  }

  it('lets a due time under way finish before it closes', async () => {
    let finished = false;
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const schedules = consumer(async () => {
      started();
      await new Promise((resolve) => setTimeout(resolve, 300));
      finished = true;
    });
    schedules.start();
    await dueNow();
    await running;
    await schedules.close();
    expect(finished).toBe(true);
    expect(lines.map((line) => line.msg)).not.toContain(
      'schedules consumer not closed in time: let go of what it ran',
    );
  });

  it('closes within its bound when a due time under way never ends, and says so', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const schedules = consumer(() => {
      started();
      return new Promise<void>(() => {});
    });
    schedules.start();
    await dueNow();
    await running;
    // Resolves (the test's timeout is far above the bound); before the bound it never did.
    await schedules.close();
    expect(lines.map((line) => line.msg)).toContain(
      'schedules consumer not closed in time: let go of what it ran',
    );
  }, 30_000);
});
