import { redisAddressOf } from '@skillrun/core/data';
import { describe, expect, it } from 'vitest';

describe('redisAddressOf: which Redis a log line names', () => {
  it('shows REDIS_URL with *** for its password, and the user if there is one', () => {
    expect(redisAddressOf({ url: 'redis://:s3cret@redis.internal:6380/2' })).toEqual({
      text: 'redis://:***@redis.internal:6380/2',
      setting: 'REDIS_URL',
    });
    expect(redisAddressOf({ url: 'rediss://app:p%40ss@r:6379' }).text).toBe('rediss://app:***@r:6379');
    expect(redisAddressOf({ url: 'redis://127.0.0.1:6379' }).text).toBe('redis://127.0.0.1:6379');
  });

  it('names the Sentinels and their master, or the cluster nodes, and the setting that lists them', () => {
    const url = 'redis://:s3cret@ignored:6379';
    const sentinels = {
      nodes: [
        { host: 's1', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'jobs',
    };
    expect(redisAddressOf({ url, sentinels: { ...sentinels, password: 'sentinel-s3cret' } })).toEqual({
      text: 'Sentinels s1:26379,[::1]:26380 (master "jobs")',
      setting: 'REDIS_SENTINELS',
    });
    expect(redisAddressOf({ url, cluster: { nodes: [{ host: 'c1', port: 7000 }] } })).toEqual({
      text: 'cluster nodes c1:7000',
      setting: 'REDIS_CLUSTER_NODES',
    });
  });

  it('shows nothing of a REDIS_URL it cannot read', () => {
    expect(redisAddressOf({ url: 'redis://:s3cret@[bad' }).text).toBe('REDIS_URL (not a URL)');
  });
});
