import { Type } from '@sinclair/typebox';
import { CommonConfig, ConfigError, parseEnv } from '@skillrun/core';
import { parseRedisNodes, redisTargetOf } from '@skillrun/core/data';
import { describe, expect, it } from 'vitest';

const MASTER_URL = 'redis://:secret@ignored:6379/2';

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseRedisNodes', () => {
  it('reads host:port lists, IPv6 hosts in brackets', () => {
    expect(parseRedisNodes('s1:26379,10.0.0.2:26380,[::1]:26381', 'REDIS_SENTINELS')).toEqual([
      { host: 's1', port: 26379 },
      { host: '10.0.0.2', port: 26380 },
      { host: '::1', port: 26381 },
    ]);
  });

  it.each(['sentinel', 'sentinel:', ':26379', 'sentinel:0', 'sentinel:65536', 'a:1,,b:2', 'a:1, b:2'])(
    'refuses %j, naming the setting and the entry',
    (value) => {
      expect(configError(() => parseRedisNodes(value, 'REDIS_SENTINELS')).message).toMatch(
        /^REDIS_SENTINELS: ".*" is not host:port/,
      );
    },
  );
});

describe('redisTargetOf', () => {
  it('is the URL alone without Sentinels', () => {
    expect(redisTargetOf({ REDIS_URL: MASTER_URL })).toEqual({ url: MASTER_URL });
  });

  it('names the Sentinels, the master group and their password', () => {
    expect(
      redisTargetOf({
        REDIS_URL: MASTER_URL,
        REDIS_SENTINELS: 's1:26379,s2:26379',
        REDIS_SENTINEL_NAME: 'mymaster',
        REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      }),
    ).toEqual({
      url: MASTER_URL,
      sentinels: {
        nodes: [
          { host: 's1', port: 26379 },
          { host: 's2', port: 26379 },
        ],
        name: 'mymaster',
        password: 'sentinel-secret',
      },
    });
  });

  it('refuses Sentinels without a master name, and Sentinel settings without Sentinels', () => {
    expect(
      configError(() => redisTargetOf({ REDIS_URL: MASTER_URL, REDIS_SENTINELS: 's1:26379' })).message,
    ).toMatch(/REDIS_SENTINEL_NAME/);
    expect(
      configError(() => redisTargetOf({ REDIS_URL: MASTER_URL, REDIS_SENTINEL_NAME: 'm' })).message,
    ).toMatch(/need REDIS_SENTINELS/);
  });

  it('works from the common settings, whose schema refuses a malformed list before it is read', () => {
    const Common = Type.Object(CommonConfig);
    const settings = parseEnv(Common, { REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_NAME: 'm' });
    expect(redisTargetOf(settings).sentinels?.nodes).toEqual([{ host: 's1', port: 26379 }]);
    expect(configError(() => parseEnv(Common, { REDIS_SENTINELS: 's1 s2' })).message).toMatch(
      /REDIS_SENTINELS.*"s1 s2"/,
    );
  });
});

describe('redisTargetOf: Redis Cluster', () => {
  it('reads the seed nodes, keeping REDIS_URL for credentials', () => {
    expect(redisTargetOf({ REDIS_URL: MASTER_URL, REDIS_CLUSTER_NODES: 'r1:6379,r2:6380' })).toEqual({
      url: MASTER_URL,
      cluster: {
        nodes: [
          { host: 'r1', port: 6379 },
          { host: 'r2', port: 6380 },
        ],
      },
    });
  });

  it('refuses a cluster and Sentinels at once, and nodes that are not host:port', () => {
    const both = { REDIS_URL: MASTER_URL, REDIS_CLUSTER_NODES: 'r1:6379', REDIS_SENTINELS: 's:26379' };
    expect(configError(() => redisTargetOf(both)).message).toMatch(/REDIS_CLUSTER_NODES and REDIS_SENTINELS/);
    const bad = { REDIS_URL: MASTER_URL, REDIS_CLUSTER_NODES: 'r1:0' };
    expect(configError(() => redisTargetOf(bad)).message).toMatch(/^REDIS_CLUSTER_NODES: "r1:0"/);
  });
});
