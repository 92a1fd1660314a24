import { hostname } from 'node:os';
import { Type } from '@sinclair/typebox';
import { CommonConfig, ConfigError, parseEnv } from '@skillrun/core';
import { loadGatewayConfig } from '@skillrun/gateway';
import { loadWorkerConfig } from '@skillrun/worker';
import { describe, expect, it } from 'vitest';

const Schema = Type.Object({
  COUNT: Type.Integer({ default: 3, minimum: 1 }),
  RATIO: Type.Number({ default: 0.5 }),
  NAME: Type.String({ default: 'anon' }),
  MODE: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['fast', 'slow'] })),
  NEEDED: Type.Optional(Type.String({ minLength: 2 })),
});

function configError(action: () => unknown): ConfigError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('parseEnv', () => {
  it('coerces numbers and keeps strings', () => {
    expect(parseEnv(Schema, { COUNT: '42', RATIO: '0.25', NAME: 'bob', MODE: 'fast' })).toEqual({
      COUNT: 42,
      RATIO: 0.25,
      NAME: 'bob',
      MODE: 'fast',
    });
  });

  it('applies defaults for unset variables', () => {
    expect(parseEnv(Schema, {})).toEqual({ COUNT: 3, RATIO: 0.5, NAME: 'anon' });
  });

  it('treats empty strings as unset', () => {
    expect(parseEnv(Schema, { COUNT: '', NAME: '', MODE: '', NEEDED: '' })).toEqual({
      COUNT: 3,
      RATIO: 0.5,
      NAME: 'anon',
    });
  });

  it('reads only the variables the schema declares', () => {
    const config = parseEnv(Schema, { COUNT: '1', PATH: '/usr/bin', HOME: '/root' });
    expect(Object.keys(config).sort()).toEqual(['COUNT', 'NAME', 'RATIO']);
  });

  it('returns a frozen object and does not change the environment', () => {
    const env = { COUNT: '7' };
    const config = parseEnv(Schema, env);
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => {
      (config as { COUNT: number }).COUNT = 8;
    }).toThrow(TypeError);
    expect(env).toEqual({ COUNT: '7' });
  });

  it('throws a ConfigError naming the variable and the bad value', () => {
    const error = configError(() => parseEnv(Schema, { COUNT: 'lots' }));
    expect(error.name).toBe('ConfigError');
    expect(error.message).toContain('COUNT');
    expect(error.message).toContain('"lots"');
    expect(error.message).toContain('integer');
  });

  it('names every bad variable at once', () => {
    const error = configError(() => parseEnv(Schema, { COUNT: '0', RATIO: 'half', MODE: 'medium' }));
    expect(error.message).toMatch(/COUNT: must be >= 1 \(got "0"\)/);
    expect(error.message).toMatch(/RATIO: .*\(got "half"\)/);
    expect(error.message).toMatch(/MODE: .*\(got "medium"\)/);
  });

  it('validates the common settings', () => {
    const Common = Type.Object(CommonConfig);
    expect(parseEnv(Common, {})).toEqual({
      REDIS_URL: 'redis://127.0.0.1:6379',
      KEY_PREFIX: '{skillrun}',
      REDIS_SHARDS: 1,
      EXECUTION_TTL_SECONDS: 86_400,
      RETRY_BACKOFF_MS: 1000,
      LOG_LEVEL: 'info',
      REDIS_LIVENESS_MS: 2000,
      ACK_REPLICAS: 0,
      ACK_TIMEOUT_MS: 500,
    });
    expect(configError(() => parseEnv(Common, { REDIS_URL: 'http://x:6379' })).message).toMatch(
      /REDIS_URL.*"http:\/\/x:6379"/,
    );
    expect(configError(() => parseEnv(Common, { LOG_LEVEL: 'loud' })).message).toMatch(/LOG_LEVEL.*"loud"/);
    expect(configError(() => parseEnv(Common, { KEY_PREFIX: 'a:b' })).message).toMatch(/KEY_PREFIX.*"a:b"/);
    expect(configError(() => parseEnv(Common, { EXECUTION_TTL_SECONDS: '59' })).message).toMatch(
      /EXECUTION_TTL_SECONDS.*"59"/,
    );
  });
});

describe('loadGatewayConfig', () => {
  it('rejects PORT=abc, naming PORT and the value', () => {
    const error = configError(() => loadGatewayConfig({ PORT: 'abc' }));
    expect(error.message).toContain('PORT');
    expect(error.message).toContain('"abc"');
  });

  it('rejects a port out of range', () => {
    expect(configError(() => loadGatewayConfig({ PORT: '70000' })).message).toMatch(/PORT.*"70000"/);
  });

  it('fills defaults, with PUBLIC_BASE_URL derived from PORT', () => {
    const config = loadGatewayConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: 'http://localhost:3000',
      REDIS_URL: 'redis://127.0.0.1:6379',
      PROVIDER_NAME: 'skillrun',
    });
    expect(loadGatewayConfig({ PORT: '8123' }).PUBLIC_BASE_URL).toBe('http://localhost:8123');
    expect(loadGatewayConfig({ PORT: '8123', PUBLIC_BASE_URL: '' }).PUBLIC_BASE_URL).toBe(
      'http://localhost:8123',
    );
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('answers once the master has a write unless ACK_REPLICAS says, with Sentinels or a cluster', () => {
    expect(loadGatewayConfig({})).toMatchObject({ ACK_REPLICAS: 0, ACK_TIMEOUT_MS: 500 });
    expect(
      loadGatewayConfig({ ACK_REPLICAS: '1', REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_NAME: 'm' }),
    ).toMatchObject({
      ACK_REPLICAS: 1,
    });
    expect(configError(() => loadGatewayConfig({ ACK_TIMEOUT_MS: '0' })).message).toContain('ACK_TIMEOUT_MS');
    expect(loadGatewayConfig({ ACK_REPLICAS: '1', REDIS_CLUSTER_NODES: 'r1:6379' })).toMatchObject({
      ACK_REPLICAS: 1,
    });
  });

  it('trims trailing slashes from PUBLIC_BASE_URL', () => {
    expect(loadGatewayConfig({ PUBLIC_BASE_URL: 'https://skills.example.com/' }).PUBLIC_BASE_URL).toBe(
      'https://skills.example.com',
    );
    expect(loadGatewayConfig({ PUBLIC_BASE_URL: 'https://example.com/api///' }).PUBLIC_BASE_URL).toBe(
      'https://example.com/api',
    );
  });

  it('rejects a PUBLIC_BASE_URL that is not http(s)', () => {
    expect(configError(() => loadGatewayConfig({ PUBLIC_BASE_URL: 'ftp://x' })).message).toMatch(
      /PUBLIC_BASE_URL.*"ftp:\/\/x"/,
    );
  });

  it('coerces the numeric settings', () => {
    const config = loadGatewayConfig({
      BODY_LIMIT_BYTES: '2048',
      REDIS_TIMEOUT_MS: '100',
      SKILL_CACHE_MS: '0',
    });
    expect(config).toMatchObject({ BODY_LIMIT_BYTES: 2048, REDIS_TIMEOUT_MS: 100, SKILL_CACHE_MS: 0 });
  });

  it('bounds how long and how many requests wait on executions', () => {
    expect(loadGatewayConfig({})).toMatchObject({ MAX_WAIT_SECONDS: 30, MAX_WAITERS: 10_000 });
    expect(loadGatewayConfig({ MAX_WAIT_SECONDS: '0', MAX_WAITERS: '5' })).toMatchObject({
      MAX_WAIT_SECONDS: 0,
      MAX_WAITERS: 5,
    });
    for (const value of ['-1', '3601', '1.5', 'soon']) {
      const { message } = configError(() => loadGatewayConfig({ MAX_WAIT_SECONDS: value }));
      expect(message).toContain('MAX_WAIT_SECONDS: ');
      expect(message).toContain(`"${value}"`);
    }
    expect(configError(() => loadGatewayConfig({ MAX_WAITERS: '-1' })).message).toMatch(/MAX_WAITERS.*"-1"/);
  });
});

describe('loadWorkerConfig', () => {
  it('uses the given skills folder and a host-and-pid worker id by default', () => {
    const config = loadWorkerConfig({}, { skillsDir: '/srv/skills' });
    expect(config).toMatchObject({
      SKILLS_DIR: '/srv/skills',
      WORKER_ID: `${hostname()}-${process.pid}`,
      WORKER_CONCURRENCY: 16,
      HEARTBEAT_INTERVAL_MS: 5000,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('prefers SKILLS_DIR and WORKER_ID from the environment, and coerces numbers', () => {
    const config = loadWorkerConfig(
      { SKILLS_DIR: '/a:/b', WORKER_ID: 'w-1', WORKER_CONCURRENCY: '16' },
      { skillsDir: '/srv/skills' },
    );
    expect(config).toMatchObject({ SKILLS_DIR: '/a:/b', WORKER_ID: 'w-1', WORKER_CONCURRENCY: 16 });
  });

  it('treats an empty SKILLS_DIR as unset', () => {
    expect(loadWorkerConfig({ SKILLS_DIR: '' }, { skillsDir: '/srv/skills' }).SKILLS_DIR).toBe('/srv/skills');
  });

  it("watches skills where the process's default says so (npm start), unless SKILLS_WATCH says otherwise", () => {
    const standalone = { skillsDir: '/srv/skills', watchSkills: true };
    expect(loadWorkerConfig({}, { skillsDir: '/srv/skills' }).SKILLS_WATCH).toBe(false);
    expect(loadWorkerConfig({}, standalone).SKILLS_WATCH).toBe(true);
    expect(loadWorkerConfig({ SKILLS_WATCH: 'false' }, standalone).SKILLS_WATCH).toBe(false);
    expect(loadWorkerConfig({ SKILLS_WATCH: 'true' }, { skillsDir: '/srv/skills' }).SKILLS_WATCH).toBe(true);
    expect(configError(() => loadWorkerConfig({ SKILLS_WATCH: 'yes please' }, standalone)).message).toMatch(
      /SKILLS_WATCH.*"yes please"/,
    );
  });

  it('rejects bad numbers, naming the variable and the value', () => {
    const defaults = { skillsDir: '/srv/skills' };
    expect(configError(() => loadWorkerConfig({ WORKER_CONCURRENCY: '0' }, defaults)).message).toMatch(
      /WORKER_CONCURRENCY.*"0"/,
    );
    expect(configError(() => loadWorkerConfig({ HEARTBEAT_INTERVAL_MS: 'soon' }, defaults)).message).toMatch(
      /HEARTBEAT_INTERVAL_MS.*"soon"/,
    );
  });
});
