import { randomUUID } from 'node:crypto';
import {
  BatchAccepted,
  BatchView,
  CommonConfig,
  ConfigError,
  checkShardSettings,
  createAjv,
  JobPayload,
} from '@skillrun/core';
import { newJobPayload, RedisKeys, runExecutionId, ShardMap, VSHARDS } from '@skillrun/core/data';
import { loadGatewayConfig } from '@skillrun/gateway';
import { loadWorkerConfig } from '@skillrun/worker';
import calculateSlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';

const PREFIX = '{skillrun}';
const SLOTS = 16_384;

describe('ShardMap', () => {
  it('keeps every key of an unmarked id under the prefix, byte for byte (REDIS_SHARDS=1)', () => {
    const keys = new RedisKeys(PREFIX);
    const id = randomUUID();
    expect(keys.tagOf(id)).toBe(PREFIX);
    expect(keys.execution(id)).toBe(`{skillrun}:exec:${id}`);
    expect(keys.outcome(id)).toBe(`{skillrun}:exec:${id}:outcome`);
    expect(keys.chunks(id)).toBe(`{skillrun}:exec:${id}:chunks`);
    expect(keys.job('skill.echo@1.0.0', id)).toBe(`{skillrun}:skill.echo@1.0.0:${id}`);
    expect(new ShardMap(PREFIX).active()).toEqual([128]);
  });

  it('reads back the vshard it minted an id for, for each of the 256', () => {
    const shards = new ShardMap(PREFIX);
    for (let vshard = 0; vshard < VSHARDS; vshard++) {
      const id = shards.mintId(vshard);
      expect(shards.vshardOf(id)).toBe(vshard);
      expect(shards.tagOf(id)).toBe(shards.tag(vshard));
    }
  });

  it('has no vshard outside 0 to 255', () => {
    const shards = new ShardMap(PREFIX);
    for (const vshard of [-1, 256, 1.5]) {
      expect(() => shards.mintId(vshard)).toThrow(RangeError);
      expect(() => shards.tag(vshard)).toThrow(RangeError);
    }
  });

  it('gives each vshard a tag of its inner name whose slot is in its band of 64', () => {
    const shards = new ShardMap(PREFIX);
    const tags = new Set<string>();
    for (let vshard = 0; vshard < VSHARDS; vshard++) {
      const tag = shards.tag(vshard);
      tags.add(tag);
      expect(tag).toMatch(/^\{skillrun:\d+\}$/);
      expect(Math.floor(calculateSlot(tag) / 64)).toBe(vshard);
    }
    expect(tags.size).toBe(VSHARDS);
  });

  it('takes random UUIDs, schedule runs and any other id for legacy ones', () => {
    const shards = new ShardMap(PREFIX, 3);
    const ids = [
      ...Array.from({ length: 200 }, () => randomUUID()),
      ...Array.from({ length: 200 }, (_, n) =>
        runExecutionId(`schedule-${n}`, 1_700_000_000_000 + n * 60_000),
      ),
      'exec-789-xyz',
      '',
      shards.mintId(7).toUpperCase(),
    ];
    for (const id of ids) {
      expect(shards.vshardOf(id)).toBeUndefined();
      expect(shards.tagOf(id)).toBe(PREFIX);
    }
  });

  it("derives a schedule run's id on its schedule's vshard, the same at every try (slice 14)", () => {
    const shards = new ShardMap(PREFIX, 3);
    const due = 1_700_000_000_000;
    for (const vshard of shards.active()) {
      const id = runExecutionId('sch_a', due, { shards, vshard });
      expect(shards.vshardOf(id)).toBe(vshard);
      expect(runExecutionId('sch_a', due, { shards, vshard })).toBe(id);
      expect(runExecutionId('sch_a', due + 1000, { shards, vshard })).not.toBe(id);
      // The digest's bits, those the marker takes aside, are the legacy id's.
      expect(id.slice(0, 13)).toBe(runExecutionId('sch_a', due).slice(0, 13));
    }
  });

  it('mints ids that the job payload, its parent link and batch ids accept as UUIDs', () => {
    const shards = new ShardMap(PREFIX, 3);
    const ajv = createAjv();
    const [payload, batch, view] = [
      ajv.compile(JobPayload),
      ajv.compile(BatchAccepted),
      ajv.compile(BatchView),
    ];
    for (const vshard of [0, 42, 128, 213, 255]) {
      const id = shards.mintId(vshard);
      const job = newJobPayload(
        {
          skill_id: 'echo',
          skill_version: '1.0.0',
          inputs: {},
          caller: { id: 'tester', type: 'user' },
          trace_id: 'trace',
          priority: 'normal',
          parent: { execution_id: shards.mintId(vshard), step: 'first' },
        },
        id,
      );
      expect(payload(job), JSON.stringify(payload.errors)).toBe(true);
      expect(batch({ batch_id: id, executions: [] }), JSON.stringify(batch.errors)).toBe(true);
      const counts = {
        awaiting_approval: 0,
        accepted: 1,
        running: 0,
        completed: 0,
        failed: 0,
        timeout: 0,
        canceled: 0,
      };
      const seen = {
        batch_id: id,
        caller: { id: 'tester', type: 'user' },
        created_at: new Date().toISOString(),
      };
      expect(
        view({ ...seen, items: 1, ended: false, counts, executions: [] }),
        JSON.stringify(view.errors),
      ).toBe(true);
    }
  });

  it('puts the tags of three shards on three different thirds of the slot space', () => {
    const shards = new ShardMap(PREFIX, 3);
    expect(shards.active()).toEqual([42, 128, 213]);
    const thirds = shards
      .active()
      .map((vshard) => Math.floor((calculateSlot(shards.tag(vshard)) * 3) / SLOTS));
    expect(thirds).toEqual([0, 1, 2]);
  });

  it("keeps a skill's flow and debounce keys under the prefix at one shard, byte for byte", () => {
    const keys = new RedisKeys(PREFIX);
    expect(keys.shards.home('one_at_a_time')).toBeUndefined();
    expect(keys.flow.skill('one_at_a_time')).toBe('{skillrun}:flow:one_at_a_time:');
    expect(keys.flow.rateStarts('rated')).toBe('{skillrun}:flow:rated:starts');
    expect(keys.flow.debounce('quick', 'c', 'trailing', 'k')).toBe(
      '{skillrun}:flow:quick:debounce:c:trailing:k',
    );
    expect(keys.flow.homeRecords('one_at_a_time')).toBe(keys.execution(''));
  });

  it('gives each skill a home among the active vshards, the same for every map, spread over them', () => {
    const keys = new RedisKeys(PREFIX, 3);
    const skills = Array.from({ length: 60 }, (_, n) => `skill_${n}`);
    const homes = skills.map((skill) => keys.shards.home(skill));
    expect(skills.map((skill) => new ShardMap(PREFIX, 3).home(skill))).toEqual(homes);
    expect(new Set(homes)).toEqual(new Set(keys.shards.active()));
    const [skill] = skills as [string];
    const tag = keys.shards.tag(keys.shards.home(skill) as number);
    expect(keys.flow.skill(skill)).toBe(`${tag}:flow:${skill}:`);
    expect(keys.flow.homeRecords(skill)).toBe(`${tag}:exec:`);
    // The flow keys share the slot of the records of the skill's executions minted at home.
    const id = keys.shards.mintId(keys.shards.home(skill) as number);
    expect(calculateSlot(keys.flow.rateStarts(skill))).toBe(calculateSlot(keys.execution(id)));
  });
});

describe('REDIS_SHARDS', () => {
  const settings = { REDIS_SHARDS: 3, KEY_PREFIX: PREFIX };

  it('is 1 unless set, from 1 to 256', () => {
    expect(CommonConfig.REDIS_SHARDS).toMatchObject({ default: 1, minimum: 1, maximum: VSHARDS });
  });

  it('takes any prefix and any Redis at 1', () => {
    expect(() =>
      checkShardSettings({ REDIS_SHARDS: 1, KEY_PREFIX: 'plain', REDIS_SENTINELS: 's:26379' }),
    ).not.toThrow();
  });

  it('above 1, takes a braced prefix on a cluster or one Redis', () => {
    expect(() => checkShardSettings(settings)).not.toThrow();
  });

  it.each(['plain', '{a}b', 'a{b}', '{}'])(
    'above 1, refuses KEY_PREFIX %j, which is not one hash tag',
    (prefix) => {
      expect(() => checkShardSettings({ ...settings, KEY_PREFIX: prefix })).toThrow(ConfigError);
    },
  );

  it('is checked by the gateway and the worker as they read their settings', () => {
    const env = { REDIS_SHARDS: '3', KEY_PREFIX: 'plain' };
    expect(() => loadGatewayConfig(env)).toThrow(/REDIS_SHARDS above 1 needs a KEY_PREFIX/);
    expect(() => loadWorkerConfig(env, { skillsDir: '/srv/skills' })).toThrow(
      /REDIS_SHARDS above 1 needs a KEY_PREFIX/,
    );
    expect(loadWorkerConfig({ REDIS_SHARDS: '3' }, { skillsDir: '/srv/skills' }).REDIS_SHARDS).toBe(3);
  });

  it('above 1, refuses Sentinels', () => {
    expect(() => checkShardSettings({ ...settings, REDIS_SENTINELS: 's:26379' })).toThrow(/REDIS_SENTINELS/);
  });
});
