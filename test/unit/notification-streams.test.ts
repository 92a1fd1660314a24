import { randomUUID } from 'node:crypto';
import { RedisKeys } from '@skillrun/core/data';
import { describe, expect, it } from 'vitest';
import { advance, type FeedEvent } from '../../apps/gateway/src/executions/change-feed';

const PREFIX = '{skillrun}';

function event(stream: number, entry: string): FeedEvent {
  return { stream, entry, executionId: 'e', status: 'running', owner: 'o' };
}

describe('notifications streams', () => {
  it('is the one stream under the prefix at one shard, byte for byte', () => {
    const keys = new RedisKeys(PREFIX);
    expect(keys.notifications.streams()).toEqual([{ key: '{skillrun}:notifications' }]);
    expect(keys.notifications.stream(randomUUID())).toBe('{skillrun}:notifications');
  });

  it('is the prefix one plus each active vshard one, an execution on its own id tag', () => {
    const keys = new RedisKeys(PREFIX, 3);
    const streams = keys.notifications.streams();
    expect(streams).toEqual([
      { key: '{skillrun}:notifications' },
      ...keys.shards.active().map((vshard) => ({ key: `${keys.shards.tag(vshard)}:notifications`, vshard })),
    ]);
    expect(new Set(streams.map(({ key }) => key)).size).toBe(4);
    const id = keys.shards.mintId(keys.shards.active()[1] as number);
    expect(keys.notifications.stream(id)).toBe(streams[2]?.key);
    expect(keys.notifications.stream(randomUUID())).toBe(streams[0]?.key);
  });

  it('moves a position on in the event stream only, and never back', () => {
    expect(advance('5-0', event(0, '6-1'))).toBe('6-1');
    expect(advance('5-0', event(0, '5-0'))).toBeUndefined();
    expect(advance('5-0_0-0_9-2', event(1, '3-0'))).toBe('5-0_3-0_9-2');
    expect(advance('5-0_0-0_9-2', event(2, '9-1'))).toBeUndefined();
  });
});
