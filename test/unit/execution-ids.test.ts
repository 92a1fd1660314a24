import { ExecutionIds, ShardMap } from '@skillrun/core/data';
import { describe, expect, it } from 'vitest';

const PREFIX = '{skillrun}';

describe('ExecutionIds', () => {
  it('mints legacy ids at one shard, as before sharding', () => {
    const ids = new ExecutionIds(new ShardMap(PREFIX));
    const id = ids.mint();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ids.sharded(id)).toBe(false);
  });

  it('takes the active vshards in turn above one, and a legacy id when asked', () => {
    const shards = new ShardMap(PREFIX, 3);
    const ids = new ExecutionIds(shards);
    const minted = Array.from({ length: 6 }, () => shards.vshardOf(ids.mint()));
    expect(minted).toEqual([...shards.active(), ...shards.active()]);
    expect(shards.vshardOf(ids.mint(true))).toBeUndefined();
  });

  it("puts a step on its parent's vshard, and under a legacy parent a legacy id", () => {
    const shards = new ShardMap(PREFIX, 3);
    const ids = new ExecutionIds(shards);
    const parent = shards.mintId(42);
    expect(shards.vshardOf(ids.inherit(parent))).toBe(42);
    expect(ids.sharded(ids.inherit(ids.mint(true)))).toBe(false);
  });

  it("pins a gated or debounced execution to its skill's home vshard; a legacy id at one shard", () => {
    const shards = new ShardMap(PREFIX, 3);
    const ids = new ExecutionIds(shards);
    const home = shards.home('one_at_a_time');
    const pinned = ids.pinned('one_at_a_time');
    expect(shards.vshardOf(pinned)).toBe(home);
    expect(ids.atHome(pinned, 'one_at_a_time')).toBe(true);
    expect(ids.atHome(ids.mint(true), 'one_at_a_time')).toBe(false);
    const elsewhere = shards.active().find((vshard) => vshard !== home) as number;
    expect(ids.atHome(shards.mintId(elsewhere), 'one_at_a_time')).toBe(false);
    const single = new ExecutionIds(new ShardMap(PREFIX));
    expect(single.sharded(single.pinned('one_at_a_time'))).toBe(false);
    expect(single.atHome(single.mint(), 'one_at_a_time')).toBe(true);
  });
});
