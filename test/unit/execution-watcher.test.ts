import { EventEmitter } from 'node:events';
import { RedisKeys } from '@skillrun/core/data';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ExecutionWatcher } from '../../apps/gateway/src/executions/execution-watcher';

const keys = new RedisKeys('{t}');

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
  /** An announcement of the execution store's (transition.lua): the execution's id, then its change. */
  publish(name: string, executionId: string, change: string): void {
    this.emit('message', name, `${executionId}\n${change}`);
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
  return { watcher, opened, inbox: keys.watcherInbox(watcher.id) };
}

const never = new AbortController().signal;
const anyChange = () => true;

describe('ExecutionWatcher', () => {
  it('opens one connection, on the first watch, and subscribes its inbox once, whatever is watched', async () => {
    const { watcher, opened, inbox } = standIn();
    const first = watcher.watch('a');
    const second = watcher.watch('b');
    expect(opened).toHaveLength(1);
    opened[0]?.connect();
    await Promise.all([first?.subscribed, second?.subscribed]);
    first?.release();
    await watcher.watch('c')?.subscribed;
    expect(opened[0]?.commands).toEqual([`SUBSCRIBE ${inbox}`]);
  });

  it("wakes each request on its own execution's announcements, kept from the start of the watch", async () => {
    const { watcher, opened, inbox } = standIn();
    const a = watcher.watch('a');
    const b = watcher.watch('b');
    opened[0]?.connect();
    await Promise.all([a?.subscribed, b?.subscribed]);
    // Announced before the request starts waiting (while it re-reads the record): not lost.
    opened[0]?.publish(inbox, 'a', 'running');
    await a?.until(anyChange, 60_000, never);
    const ending = b?.until((status) => status === 'completed', 60_000, never);
    let ended = false;
    void ending?.then(() => {
      ended = true;
    });
    opened[0]?.publish(inbox, 'b', 'running');
    opened[0]?.publish(inbox, 'a', 'completed');
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    opened[0]?.publish(inbox, 'b', 'completed');
    await ending;
  });

  it('tells a stream of more output apart from a change, and wakes no wait for a change with it', async () => {
    const { watcher, opened, inbox } = standIn();
    const watch = watcher.watch('a');
    opened[0]?.connect();
    await watch?.subscribed;
    let changed = false;
    const change = watch?.until(anyChange, 60_000, never).then(() => {
      changed = true;
    });
    opened[0]?.publish(inbox, 'a', 'chunk');
    await new Promise((resolve) => setImmediate(resolve));
    expect(changed).toBe(false);
    expect(await watch?.next(60_000, never)).toBe('chunks');
    opened[0]?.publish(inbox, 'a', 'chunk');
    opened[0]?.publish(inbox, 'a', 'running');
    expect(await watch?.next(60_000, never)).toBe('changed');
    await change;
    expect(await watch?.next(10, never)).toBe('timeout');
  });

  it('hands the end, with the record it carries, to every request watching that execution', async () => {
    const { watcher, opened, inbox } = standIn();
    const [first, second] = [watcher.watch('a'), watcher.watch('a')];
    opened[0]?.connect();
    await first?.subscribed;
    opened[0]?.publish(inbox, 'a', 'completed\n["status","completed"]\n');
    expect([first?.ending, second?.ending]).toEqual([
      'completed\n["status","completed"]\n',
      'completed\n["status","completed"]\n',
    ]);
  });

  it('drops announcements of executions nobody here waits for any more', async () => {
    const { watcher, opened, inbox } = standIn();
    const watch = watcher.watch('a');
    opened[0]?.connect();
    await watch?.subscribed;
    watch?.release();
    opened[0]?.publish(inbox, 'a', 'completed');
    const again = watcher.watch('a');
    await again?.until(anyChange, 10, never);
    expect(again?.ending).toBeUndefined();
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

  it('keeps at most maxWatches at once, counted as waiting, and answers null past it', () => {
    const { watcher } = standIn(2);
    const first = watcher.watch('a');
    expect(watcher.watch('b')).not.toBeNull();
    expect(watcher.watch('c')).toBeNull();
    expect(watcher.waiting).toBe(2);
    first?.release();
    first?.release();
    expect(watcher.waiting).toBe(1);
    expect(watcher.watch('c')).not.toBeNull();
  });

  it('wakes every request when the connection is lost, and opens a fresh one for the next', async () => {
    const { watcher, opened, inbox } = standIn();
    const watch = watcher.watch('a');
    opened[0]?.connect();
    await watch?.subscribed;
    opened[0]?.emit('close');
    await watch?.until(() => false, 60_000, never);
    expect(opened[0]?.status).toBe('end');
    watch?.release();
    const next = watcher.watch('a');
    expect(opened).toHaveLength(2);
    opened[1]?.connect();
    await next?.subscribed;
    expect(opened[1]?.commands).toEqual([`SUBSCRIBE ${inbox}`]);
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
