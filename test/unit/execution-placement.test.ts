import { randomUUID } from 'node:crypto';
import { SkillError } from '@skillrun/core';
import { ExecutionIds, placeExecution, runExecutionId, ShardMap } from '@skillrun/core/data';
import { describe, expect, it } from 'vitest';

const PREFIX = '{skillrun}';
const SKILL = 'one_at_a_time';
const plain = { skillId: SKILL, pinned: undefined } as const;

const codeOf = (place: () => string) => {
  try {
    place();
    return undefined;
  } catch (error) {
    return error instanceof SkillError ? error.code : 'thrown';
  }
};

describe('placeExecution', () => {
  it('gives every execution a legacy id at one shard, a schedule run its own', () => {
    const shards = new ShardMap(PREFIX);
    const ids = new ExecutionIds(shards);
    for (const needs of [
      plain,
      { ...plain, pinned: 'gated' as const },
      { ...plain, pinned: 'debounced' as const },
    ]) {
      expect(shards.vshardOf(placeExecution(ids, needs))).toBeUndefined();
    }
    const executionId = randomUUID();
    const origin = { kind: 'schedule-run', scheduleId: 'schedule-1', executionId } as const;
    expect(placeExecution(ids, { ...plain, pinned: 'gated', origin })).toBe(executionId);
    expect(placeExecution(ids, { ...plain, origin })).toBe(executionId);
  });

  it("above one shard, pins a gated or debounced execution to its skill's home, and spreads the others", () => {
    const shards = new ShardMap(PREFIX, 3);
    const ids = new ExecutionIds(shards);
    const home = shards.home(SKILL);
    expect(shards.vshardOf(placeExecution(ids, { ...plain, pinned: 'gated' }))).toBe(home);
    expect(shards.vshardOf(placeExecution(ids, { ...plain, pinned: 'debounced' }))).toBe(home);
    expect(shards.vshardOf(placeExecution(ids, plain))).not.toBeUndefined();
  });

  it("above one shard, pins a gated schedule run's derived id to the skill's home, the same at every try; others on the schedule's vshard", () => {
    const shards = new ShardMap(PREFIX, 3);
    const ids = new ExecutionIds(shards);
    const executionId = runExecutionId('schedule-1', 1_700_000_000_000);
    const vshard = shards.active()[0] as number;
    const shardedExecutionId = runExecutionId('schedule-1', 1_700_000_000_000, { shards, vshard });
    const scheduled = {
      kind: 'schedule-run',
      scheduleId: 'schedule-1',
      executionId,
      shardedExecutionId,
    } as const;
    const pinned = placeExecution(ids, { ...plain, pinned: 'gated', origin: scheduled });
    expect(shards.vshardOf(pinned)).toBe(shards.home(SKILL));
    expect(placeExecution(ids, { ...plain, pinned: 'debounced', origin: scheduled })).toBe(pinned);
    expect(pinned).toBe(shards.pinId(executionId, shards.home(SKILL) as number));
    // Not pinned: on the schedule's vshard.
    expect(placeExecution(ids, { ...plain, origin: scheduled })).toBe(shardedExecutionId);
  });

  it("keeps a sharded batch's pinned item only on its skill's home", () => {
    const shards = new ShardMap(PREFIX, 3);
    const ids = new ExecutionIds(shards);
    const home = shards.home(SKILL) as number;
    const elsewhere = shards.active().find((vshard) => vshard !== home) as number;
    const item = (vshard: number, needs = {}) =>
      placeExecution(ids, { ...plain, ...needs, origin: { kind: 'batch-item', batchId: 'batch-1', vshard } });
    expect(shards.vshardOf(item(home, { pinned: 'gated' }))).toBe(home);
    expect(shards.vshardOf(item(elsewhere))).toBe(elsewhere);
    expect(codeOf(() => item(elsewhere, { pinned: 'gated' }))).toBe('INVALID_INPUT');
    expect(codeOf(() => item(elsewhere, { pinned: 'debounced' }))).toBe('INVALID_INPUT');
  });
});
