import { randomUUID } from 'node:crypto';
import { SkillError } from '@skillrun/core';
import { ExecutionIds, ShardMap } from '@skillrun/core/data';
import { describe, expect, it } from 'vitest';
import { placeExecution } from '../../apps/gateway/src/invocations/execution-placement';
import { runExecutionId } from '../../apps/gateway/src/schedules/schedule-runner';

const PREFIX = '{skillrun}';
const SKILL = 'one_at_a_time';
const plain = { skillId: SKILL, pinned: undefined, quota: false, task: false } as const;

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
      { ...plain, pinned: 'debounced' as const, quota: true },
      { ...plain, task: true },
    ]) {
      expect(shards.vshardOf(placeExecution(ids, needs))).toBeUndefined();
    }
    const scheduledId = randomUUID();
    expect(placeExecution(ids, { ...plain, pinned: 'gated', scheduledId })).toBe(scheduledId);
  });

  it("above one shard, pins a gated or debounced execution to its skill's home, a task's too", () => {
    const shards = new ShardMap(PREFIX, 3);
    const ids = new ExecutionIds(shards);
    const home = shards.home(SKILL);
    expect(shards.vshardOf(placeExecution(ids, { ...plain, pinned: 'gated' }))).toBe(home);
    expect(shards.vshardOf(placeExecution(ids, { ...plain, pinned: 'debounced', task: true }))).toBe(home);
    expect(shards.vshardOf(placeExecution(ids, { ...plain, task: true }))).toBeUndefined();
    expect(shards.vshardOf(placeExecution(ids, { ...plain, quota: true }))).toBeUndefined();
  });

  it('above one shard, refuses a pinned execution that a quota would keep under the prefix', () => {
    const ids = new ExecutionIds(new ShardMap(PREFIX, 3));
    expect(codeOf(() => placeExecution(ids, { ...plain, pinned: 'gated', quota: true }))).toBe(
      'NOT_CONFIGURED',
    );
  });

  it("above one shard, pins a gated schedule run's derived id to the skill's home, the same at every try", () => {
    const shards = new ShardMap(PREFIX, 3);
    const ids = new ExecutionIds(shards);
    const scheduledId = runExecutionId('schedule-1', 1_700_000_000_000);
    const pinned = placeExecution(ids, { ...plain, pinned: 'gated', scheduledId });
    expect(shards.vshardOf(pinned)).toBe(shards.home(SKILL));
    expect(placeExecution(ids, { ...plain, pinned: 'debounced', scheduledId })).toBe(pinned);
    expect(pinned).toBe(shards.pinId(scheduledId, shards.home(SKILL) as number));
    expect(placeExecution(ids, { ...plain, scheduledId })).toBe(scheduledId);
  });

  it("keeps a sharded batch's pinned item only on its skill's home", () => {
    const shards = new ShardMap(PREFIX, 3);
    const ids = new ExecutionIds(shards);
    const home = shards.home(SKILL) as number;
    const elsewhere = shards.active().find((vshard) => vshard !== home) as number;
    const item = (vshard: number, needs = {}) =>
      placeExecution(ids, { ...plain, ...needs, mintOn: { shards, vshard } });
    expect(shards.vshardOf(item(home, { pinned: 'gated' }))).toBe(home);
    expect(shards.vshardOf(item(elsewhere))).toBe(elsewhere);
    expect(codeOf(() => item(elsewhere, { pinned: 'gated' }))).toBe('INVALID_INPUT');
    expect(codeOf(() => item(elsewhere, { pinned: 'debounced' }))).toBe('INVALID_INPUT');
    expect(codeOf(() => item(home, { quota: true }))).toBe('INVALID_INPUT');
  });
});
