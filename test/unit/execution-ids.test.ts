import { randomUUID } from 'node:crypto';
import { ExecutionIds, ShardMap } from '@skillrun/core/data';
import { describe, expect, it } from 'vitest';

const PREFIX = '{skillrun}';

describe('ExecutionIds', () => {
  it('mints legacy ids at one shard, as before sharding', () => {
    const ids = new ExecutionIds(new ShardMap(PREFIX));
    const id = ids.mint();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new ShardMap(PREFIX, 3).vshardOf(id)).toBeUndefined();
  });

  it('takes the active vshards in turn above one, whatever the skill', () => {
    const shards = new ShardMap(PREFIX, 3);
    const ids = new ExecutionIds(shards);
    const minted = Array.from({ length: 6 }, () => shards.vshardOf(ids.mint()));
    expect(minted).toEqual([...shards.active(), ...shards.active()]);
  });

  it("puts a step on its parent's vshard, and under a legacy parent (made at one shard) a legacy id", () => {
    const shards = new ShardMap(PREFIX, 3);
    const ids = new ExecutionIds(shards);
    const parent = shards.mintId(42);
    expect(shards.vshardOf(ids.inherit(parent))).toBe(42);
    expect(shards.vshardOf(ids.inherit(randomUUID()))).toBeUndefined();
  });

  it("pins a gated or debounced execution to its skill's home vshard; a legacy id at one shard", () => {
    const shards = new ShardMap(PREFIX, 3);
    const ids = new ExecutionIds(shards);
    const home = shards.home('one_at_a_time');
    const pinned = ids.pinned('one_at_a_time');
    expect(shards.vshardOf(pinned)).toBe(home);
    expect(ids.atHome(pinned, 'one_at_a_time')).toBe(true);
    expect(ids.atHome(randomUUID(), 'one_at_a_time')).toBe(false);
    const elsewhere = shards.active().find((vshard) => vshard !== home) as number;
    expect(ids.atHome(shards.mintId(elsewhere), 'one_at_a_time')).toBe(false);
    const single = new ExecutionIds(new ShardMap(PREFIX));
    expect(shards.vshardOf(single.pinned('one_at_a_time'))).toBeUndefined();
    expect(single.atHome(single.mint(), 'one_at_a_time')).toBe(true);
  });
});
