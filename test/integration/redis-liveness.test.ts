import { once } from 'node:events';
import { createRedis, RedisLiveness } from '@skillrun/core/data';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { capturedLogger } from '../support/captured-logger';
import { TcpProxy } from '../support/tcp-proxy';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// A Redis cut off by the network: a proxy between the connections and Redis stops forwarding
// both ways, on the connections open and on new ones, and closes nothing.

const INTERVAL_MS = 250;

describe('a Redis that stops answering', () => {
  let redis: TestRedis;
  let proxy: TcpProxy;
  const { logger, lines } = capturedLogger();
  const opened: Redis[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    const { hostname, port } = new URL(redis.url);
    proxy = await TcpProxy.start({ host: hostname, port: Number(port) });
  });
  afterEach(() => {
    proxy.heal();
    for (const connection of opened.splice(0)) connection.disconnect();
    lines.length = 0;
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  async function connect(liveness: RedisLiveness, role: 'request' | 'queue'): Promise<Redis> {
    const connection = createRedis(proxy.url, { role, liveness });
    opened.push(connection);
    if (connection.status !== 'ready') await once(connection, 'ready');
    return connection;
  }

  function stoppedAnswering(): string[] {
    return lines.map(({ msg }) => msg).filter((msg) => msg.includes('stopped answering'));
  }

  it('is left: commands fail meanwhile, and the connections come back once it forwards again', async () => {
    const liveness = new RedisLiveness({ intervalMs: INTERVAL_MS, target: { url: proxy.url }, logger });
    const request = await connect(liveness, 'request');
    const queue = await connect(liveness, 'queue');
    // Duplicates are watched as their original is: a subscriber, which sends nothing of its own
    // while it listens, and one blocked in a read for longer than its PING would wait otherwise.
    const subscriber = request.duplicate();
    const blocked = queue.duplicate();
    for (const duplicate of [subscriber, blocked]) {
      duplicate.on('error', () => {});
      opened.push(duplicate);
    }
    // Both connect at once: waited for one after the other, the second may be ready already, and
    // a 'ready' that has passed never comes (the test hung so under CI's load).
    await Promise.all(
      [subscriber, blocked].map((duplicate) =>
        duplicate.status === 'ready' ? undefined : once(duplicate, 'ready'),
      ),
    );
    await subscriber.subscribe('liveness-test');
    const read = blocked.blpop('never-pushed', 8).catch(() => null);
    const idsBefore = await Promise.all([request.client('ID'), queue.client('ID')]);

    proxy.blackhole();
    const reconnecting = [request, queue, subscriber].map((connection) => once(connection, 'reconnecting'));
    const failed = request.get('key').then(
      () => 'answered',
      () => 'failed',
    );
    const served = queue.set('liveness-key', 'kept');

    // Each connection leaves the server that stopped answering; the blocked one with the first.
    await Promise.race(reconnecting);
    expect(blocked.status).not.toBe('ready');
    await Promise.all(reconnecting);
    expect(await failed).toBe('failed');
    expect(stoppedAnswering()).toEqual([`Redis at ${proxy.url} stopped answering: reconnecting`]);

    proxy.heal();
    await expect
      .poll(() => request.status === 'ready' && queue.status === 'ready', { timeout: 10_000 })
      .toBe(true);
    expect(await served).toBe('OK');
    // The read goes on on the new connection, from where it was.
    await queue.rpush('never-pushed', 'pushed');
    expect(await read).toEqual(['never-pushed', 'pushed']);
    const idsAfter = await Promise.all([request.client('ID'), queue.client('ID')]);
    expect(idsAfter[0]).not.toBe(idsBefore[0]);
    expect(idsAfter[1]).not.toBe(idsBefore[1]);
    // The subscriber is subscribed again on its new connection.
    await expect
      .poll(async () => ((await queue.pubsub('NUMSUB', 'liveness-test')) as [string, number])[1], {
        timeout: 10_000,
      })
      .toBe(1);
    // One line for the incident, whichever connections noticed it.
    expect(stoppedAnswering()).toHaveLength(1);
  });

  it('leaves a connection whose handshake is never answered, until the server answers', async () => {
    const liveness = new RedisLiveness({ intervalMs: INTERVAL_MS, target: { url: proxy.url }, logger });
    proxy.blackhole();
    const connection = createRedis(proxy.url, { role: 'queue', liveness });
    opened.push(connection);
    // Connected (the proxy accepts) and never ready: given up, and tried again.
    await once(connection, 'connect');
    await once(connection, 'reconnecting');
    proxy.heal();
    await expect.poll(() => connection.status, { timeout: 10_000 }).toBe('ready');
    expect(await connection.ping()).toBe('PONG');
  });

  it('keeps a connection that answers, however long it is idle or blocks', async () => {
    const liveness = new RedisLiveness({ intervalMs: INTERVAL_MS, target: { url: proxy.url }, logger });
    const connection = await connect(liveness, 'queue');
    const blocking = connection.duplicate();
    blocking.on('error', () => {});
    opened.push(blocking);
    let closed = 0;
    for (const watched of [connection, blocking]) watched.on('close', () => closed++);
    // Blocks for 1 s, four intervals, twice: the blocking one's PINGs wait behind it, the other
    // connection sends nothing else meanwhile.
    expect(await blocking.blpop('nothing-comes', 1)).toBeNull();
    expect(await blocking.blpop('nothing-comes', 1)).toBeNull();
    expect(closed).toBe(0);
    expect(stoppedAnswering()).toEqual([]);
  });

  it('keeps a connection whose answer came while the process stood still', async () => {
    // Straight to Redis: the proxy, in this process, would stand still too.
    const liveness = new RedisLiveness({ intervalMs: INTERVAL_MS, target: { url: redis.url }, logger });
    const connection = createRedis(redis.url, { role: 'request', liveness });
    opened.push(connection);
    await once(connection, 'ready');
    let closed = 0;
    connection.on('close', () => closed++);
    // Right after each PING leaves (the same timer list, next in it; then past the turn's reads,
    // before its answer could be read), the event loop stands still for longer than a tick, as a
    // long GC would: the answer waits unread while the next tick comes.
    let stalls = 0;
    const stall = setInterval(() => {
      setImmediate(() => {
        const until = Date.now() + 2.5 * INTERVAL_MS;
        while (Date.now() < until) {}
        stalls++;
      });
    }, INTERVAL_MS);
    await expect.poll(() => stalls, { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
    clearInterval(stall);
    expect(closed).toBe(0);
    expect(stoppedAnswering()).toEqual([]);
  });
});
