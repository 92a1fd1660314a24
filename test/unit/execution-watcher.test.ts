import { EventEmitter } from 'node:events';
import { RedisKeys } from '@skillrun/core';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ExecutionWatcher } from '../../apps/gateway/src/execution-watcher';

const keys = new RedisKeys('{t}');
const channel = (id: string) => keys.executionChanged(id);

/** What the watcher asks of its subscriber connection, recorded; `publish` plays Redis announcing. */
class StandInSubscriber extends EventEmitter {
  status = 'connecting';
  readonly commands: string[] = [];

  connect(): void {
    this.status = 'ready';
    this.emit('ready');
  }
  async subscribe(name: string): Promise<void> {
    this.commands.push(`SUBSCRIBE ${name}`);
  }
  async unsubscribe(name: string): Promise<void> {
    this.commands.push(`UNSUBSCRIBE ${name}`);
  }
  publish(name: string, status: string): void {
    this.emit('message', name, status);
  }
  disconnect(): void {
    this.status = 'end';
    this.emit('close');
  }
}

function standIn(maxWatches = 10) {
  const opened: StandInSubscriber[] = [];
  const watcher = new ExecutionWatcher({
    open: () => {
      const subscriber = new StandInSubscriber();
      opened.push(subscriber);
      return subscriber as unknown as Redis;
    },
    keys,
    maxWatches,
  });
  return { watcher, opened };
}

const never = new AbortController().signal;
const anyChange = () => true;

describe('ExecutionWatcher', () => {
  it('opens one connection, on the first watch, and subscribes once when it is ready', async () => {
    const { watcher, opened } = standIn();
    const first = watcher.watch('a');
    const second = watcher.watch('a');
    expect(opened).toHaveLength(1);
    opened[0]?.connect();
    await Promise.all([first?.subscribed, second?.subscribed]);
    expect(opened[0]?.commands).toEqual([`SUBSCRIBE ${channel('a')}`]);
  });

  it('unsubscribes when the last request watching an execution leaves, not before', async () => {
    const { watcher, opened } = standIn();
    const [first, second] = [watcher.watch('a'), watcher.watch('a')];
    opened[0]?.connect();
    await first?.subscribed;
    first?.release();
    first?.release();
    expect(opened[0]?.commands).toEqual([`SUBSCRIBE ${channel('a')}`]);
    second?.release();
    expect(opened[0]?.commands).toEqual([`SUBSCRIBE ${channel('a')}`, `UNSUBSCRIBE ${channel('a')}`]);
  });

  it('does not subscribe for requests that left before the connection was ready', async () => {
    const { watcher, opened } = standIn();
    const watch = watcher.watch('a');
    watch?.release();
    opened[0]?.connect();
    await watch?.subscribed;
    expect(opened[0]?.commands.filter((command) => command.startsWith('SUBSCRIBE'))).toEqual([]);
  });

  it("wakes each request on its own execution's announcements, kept from the start of the watch", async () => {
    const { watcher, opened } = standIn();
    const a = watcher.watch('a');
    const b = watcher.watch('b');
    opened[0]?.connect();
    await Promise.all([a?.subscribed, b?.subscribed]);
    // Announced before the request starts waiting (while it re-reads the record): not lost.
    opened[0]?.publish(channel('a'), 'running');
    await a?.until(anyChange, 60_000, never);
    const ending = b?.until((status) => status === 'completed', 60_000, never);
    let ended = false;
    void ending?.then(() => {
      ended = true;
    });
    opened[0]?.publish(channel('b'), 'running');
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    opened[0]?.publish(channel('b'), 'completed');
    await ending;
  });

  it('ends a wait when it runs out or the client goes away', async () => {
    const { watcher, opened } = standIn();
    const watch = watcher.watch('a');
    opened[0]?.connect();
    await watch?.subscribed;
    await watch?.until(anyChange, 10, never);
    const gone = new AbortController();
    const waiting = watch?.until(anyChange, 60_000, gone.signal);
    gone.abort();
    await waiting;
  });

  it('keeps at most maxWatches at once, and answers null past it', () => {
    const { watcher } = standIn(2);
    const first = watcher.watch('a');
    expect(watcher.watch('b')).not.toBeNull();
    expect(watcher.watch('c')).toBeNull();
    first?.release();
    expect(watcher.watch('c')).not.toBeNull();
  });

  it('wakes every request when the connection is lost, and opens a fresh one for the next', async () => {
    const { watcher, opened } = standIn();
    const watch = watcher.watch('a');
    opened[0]?.connect();
    await watch?.subscribed;
    opened[0]?.emit('close');
    await watch?.until(() => false, 60_000, never);
    expect(opened[0]?.status).toBe('end');
    watch?.release();
    // The lost connection's channels are forgotten: nothing is sent on it.
    expect(opened[0]?.commands).toEqual([`SUBSCRIBE ${channel('a')}`]);
    const next = watcher.watch('a');
    expect(opened).toHaveLength(2);
    opened[1]?.connect();
    await next?.subscribed;
    expect(opened[1]?.commands).toEqual([`SUBSCRIBE ${channel('a')}`]);
  });

  it('wakes every request and takes no more once closed', async () => {
    const { watcher, opened } = standIn();
    const watch = watcher.watch('a');
    opened[0]?.connect();
    await watch?.subscribed;
    watcher.close();
    await watch?.until(() => false, 60_000, never);
    expect(watcher.watch('b')).toBeNull();
  });
});
