import type { Redis } from 'ioredis';
import { execAll } from '../redis/exec-all';
import type { Deprecation } from '../schemas/skill-descriptor';
import type { RedisKeys } from './redis-keys';
import type { HostedEntry, RegisteredEntry, RegistryEntry, RegistryVersion } from './registry-entry';

/**
 * Hosts a version for one worker. KEYS: versions hash, ids zset, hosts zset. ARGV: version, entry
 * JSON, digest, worker id, lease expiry, now, skill id. Refuses ('registered' / 'conflict') when the
 * version exists with other content and is registered, or hosted by another live worker; a hosted
 * version nobody serves any more may be replaced.
 */
const ADVERTISE = `
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then
  local entry = cjson.decode(existing)
  if entry.digest ~= ARGV[3] then
    if entry.source ~= 'hosted' then return 'registered' end
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[6])
    local others = redis.call('ZCARD', KEYS[3])
    if redis.call('ZSCORE', KEYS[3], ARGV[4]) then others = others - 1 end
    if others > 0 then return 'conflict' end
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  end
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
redis.call('ZADD', KEYS[2], 0, ARGV[7])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[4])
return 'ok'
`;

/**
 * Registers a version hosted elsewhere. KEYS: versions hash, ids zset. ARGV: version, entry JSON,
 * digest, skill id. Published versions are immutable, and an id served by workers here is theirs.
 */
const REGISTER = `
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then
  local entry = cjson.decode(existing)
  if entry.source ~= 'registered' then return 'hosted' end
  if entry.digest == ARGV[3] then return 'unchanged' end
  return 'conflict'
end
for _, value in ipairs(redis.call('HVALS', KEYS[1])) do
  if cjson.decode(value).source == 'hosted' then return 'hosted' end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], 0, ARGV[4])
return 'created'
`;

export type AdvertiseOutcome = 'ok' | 'registered' | 'conflict';
export type RegisterOutcome = 'created' | 'unchanged' | 'conflict' | 'hosted';

/**
 * How long after its workers' leases lapsed (without their withdrawing: a crash, or Redis or the
 * network away) a version is presumed coming back: invocations get 503 and Retry-After, not 404.
 */
const LAPSE_GRACE_MS = 30_000;

export interface WorkerLease {
  workerId: string;
  entries: HostedEntry[];
  leaseMs: number;
}

interface RegistryScripts {
  skillrunAdvertise(...args: string[]): Promise<AdvertiseOutcome>;
  skillrunRegister(...args: string[]): Promise<RegisterOutcome>;
}

/**
 * The skill registry in Redis, shared by every gateway: every version of every skill, hosted by
 * workers here (available while a worker holds a lease on it) or registered for a provider
 * elsewhere (always available). Versions are never deleted; they can be deprecated.
 */
export class SkillRegistry {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    redis.defineCommand('skillrunAdvertise', { numberOfKeys: 3, lua: ADVERTISE });
    redis.defineCommand('skillrunRegister', { numberOfKeys: 2, lua: REGISTER });
  }

  private get scripts(): RegistryScripts {
    return this.redis as unknown as RegistryScripts;
  }

  /** Renews a worker's lease on the versions it hosts; answers each version's outcome. */
  async advertise(
    { workerId, entries, leaseMs }: WorkerLease,
    now = Date.now(),
  ): Promise<AdvertiseOutcome[]> {
    const expiresAt = now + leaseMs;
    const batch = this.redis.multi().zadd(this.keys.workers(), expiresAt, workerId);
    batch.zremrangebyscore(this.keys.workers(), '-inf', now);
    const outcomes = await Promise.all([
      execAll(batch),
      ...entries.map((entry) =>
        this.scripts.skillrunAdvertise(
          this.keys.skillVersions(entry.id),
          this.keys.skillIds(),
          this.keys.skillHosts(entry.id, entry.version),
          entry.version,
          JSON.stringify(entry),
          entry.digest,
          workerId,
          String(expiresAt),
          String(now),
          entry.id,
        ),
      ),
    ]);
    return outcomes.slice(1) as AdvertiseOutcome[];
  }

  async withdraw(workerId: string, entries: Pick<HostedEntry, 'id' | 'version'>[]): Promise<void> {
    const batch = this.redis.multi().zrem(this.keys.workers(), workerId);
    for (const entry of entries) batch.zrem(this.keys.skillHosts(entry.id, entry.version), workerId);
    await execAll(batch);
  }

  register(entry: RegisteredEntry): Promise<RegisterOutcome> {
    return this.scripts.skillrunRegister(
      this.keys.skillVersions(entry.id),
      this.keys.skillIds(),
      entry.version,
      JSON.stringify(entry),
      entry.digest,
      entry.id,
    );
  }

  /** Marks a version deprecated (or, with null, not); false when no such version exists. */
  async deprecate(id: string, version: string, deprecation: Deprecation | null): Promise<boolean> {
    if (!(await this.redis.hexists(this.keys.skillVersions(id), version))) return false;
    if (deprecation) await this.redis.hset(this.keys.deprecations(id), version, JSON.stringify(deprecation));
    else await this.redis.hdel(this.keys.deprecations(id), version);
    return true;
  }

  /** Every version of one skill, available or not. */
  async versions(id: string, now = Date.now()): Promise<RegistryVersion[]> {
    return (await this.versionsOf([id], now)).get(id) ?? [];
  }

  /** Every version of each skill, in two round trips whatever the number of skills. */
  async versionsOf(ids: string[], now = Date.now()): Promise<Map<string, RegistryVersion[]>> {
    const reads = this.redis.pipeline();
    for (const id of ids) reads.hgetall(this.keys.skillVersions(id)).hgetall(this.keys.deprecations(id));
    const replies = (await execAll(reads)) as Record<string, string>[];
    const entries = ids.map((_, index) =>
      Object.values(replies[index * 2] ?? {}).map((json) => JSON.parse(json) as RegistryEntry),
    );
    const hosted = entries.flat().filter((entry) => entry.source === 'hosted');
    // The latest lease of each hosted version: live if it runs past now, lapsed if it ended lately.
    const leases = this.redis.pipeline();
    for (const entry of hosted)
      leases.zrange(this.keys.skillHosts(entry.id, entry.version), -1, -1, 'WITHSCORES');
    const latest = hosted.length > 0 ? ((await execAll(leases)) as string[][]) : [];
    const until = new Map<RegistryEntry, number>(
      hosted.map((entry, index) => [entry, Number(latest[index]?.[1] ?? 0)]),
    );
    const result = new Map<string, RegistryVersion[]>();
    ids.forEach((id, index) => {
      const deprecations = replies[index * 2 + 1] ?? {};
      const versions = (entries[index] ?? []).map((entry) => {
        const deprecation = deprecations[entry.version];
        const leaseEnd = until.get(entry) ?? 0;
        return {
          ...entry,
          available: entry.source === 'registered' || leaseEnd > now,
          ...(entry.source === 'hosted' && leaseEnd <= now && leaseEnd > now - LAPSE_GRACE_MS
            ? { lapsed: true }
            : {}),
          ...(deprecation ? { deprecation: JSON.parse(deprecation) as Deprecation } : {}),
        };
      });
      if (versions.length > 0) result.set(id, versions);
    });
    return result;
  }

  /** Up to `count` skill ids after `after`, in lexical order: a stable order for cursors. */
  ids(after: string | undefined, count: number): Promise<string[]> {
    const min = after === undefined ? '-' : `(${after}`;
    return this.redis.zrangebylex(this.keys.skillIds(), min, '+', 'LIMIT', 0, count);
  }

  /** How many worker processes hold an unexpired lease. */
  liveWorkers(now = Date.now()): Promise<number> {
    return this.redis.zcount(this.keys.workers(), now, '+inf');
  }
}
