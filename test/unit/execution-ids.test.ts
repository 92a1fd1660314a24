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
});
