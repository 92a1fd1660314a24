import type { Redis } from 'ioredis';
import { execAll } from '../redis/exec-all';
import { type RedisScript, redisScript } from '../redis/redis-script';
import type { Deprecation } from '../schemas/skill-descriptor';
import ADVERTISE from './advertise-version.lua';
import FORGET_DORMANT from './forget-dormant.lua';
import type { RedisKeys } from './keys/redis-keys';
import REGISTER from './register-version.lua';
import type {
  HostedEntry,
  OperatorApproval,
  RegisteredEntry,
  RegistryEntry,
  RegistryVersion,
} from './registry-entry';

export type AdvertiseOutcome = 'ok' | 'registered' | 'conflict';
export type RegisterOutcome = 'created' | 'unchanged' | 'conflict' | 'hosted' | 'foreign';
export type ForgetDormantOutcome = 'removed' | 'absent' | 'hosted';

/**
 * How long after its workers' leases lapsed (without their withdrawing: a crash, or Redis or the
 * network away) a version is presumed coming back: invocations get 503 and Retry-After, not 404.
 */
const LAPSE_GRACE_MS = 30_000;

export interface WorkerLease {
  workerId: string;
  entries: HostedEntry[];
  leaseMs: number;
  /** Its pool scales to zero: its versions stay invocable after its lease, until an operator forgets them. */
  scaleToZero: boolean;
}

/** A hosted version by its skill id and version. */
export interface VersionRef {
  skill: string;
  version: string;
}

/**
 * The skill registry in Redis, shared by every gateway: every version of every skill, hosted by
 * workers here (available while a worker holds a lease on it, or while it is marked by a pool that
 * scales to zero) or registered for a provider elsewhere (always available). Versions are never
 * deleted; they can be deprecated.
 */
export class SkillRegistry {
  private readonly advertiseScript: RedisScript<AdvertiseOutcome>;
  private readonly registerScript: RedisScript<RegisterOutcome>;
  private readonly forgetDormantScript: RedisScript<ForgetDormantOutcome>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    this.advertiseScript = redisScript(redis, 'skillrunAdvertise', ADVERTISE);
    this.registerScript = redisScript(redis, 'skillrunRegister', REGISTER);
    this.forgetDormantScript = redisScript(redis, 'skillrunForgetDormant', FORGET_DORMANT);
  }

  /** Renews a worker's lease on the versions it hosts; answers each version's outcome. */
  async advertise(
    { workerId, entries, leaseMs, scaleToZero }: WorkerLease,
    now = Date.now(),
  ): Promise<AdvertiseOutcome[]> {
    const expiresAt = now + leaseMs;
    const batch = this.redis.multi().zadd(this.keys.registry.workers(), expiresAt, workerId);
    batch.zremrangebyscore(this.keys.registry.workers(), '-inf', now);
    const outcomes = await Promise.all([
      execAll(batch),
      ...entries.map((entry) =>
        this.advertiseScript(
          [
            this.keys.registry.skillVersions(entry.id),
            this.keys.registry.skillIds(),
            this.keys.registry.skillHosts(entry.id, entry.version),
            this.keys.registry.dormantVersions(),
          ],
          [
            entry.version,
            JSON.stringify(entry),
            entry.digest,
            workerId,
            expiresAt,
            now,
            entry.id,
            `${entry.id}@${entry.version}`,
            scaleToZero ? '1' : '0',
          ],
        ),
      ),
    ]);
    return outcomes.slice(1) as AdvertiseOutcome[];
  }

  async withdraw(workerId: string, entries: Pick<HostedEntry, 'id' | 'version'>[]): Promise<void> {
    const batch = this.redis.multi().zrem(this.keys.registry.workers(), workerId);
    for (const entry of entries) batch.zrem(this.keys.registry.skillHosts(entry.id, entry.version), workerId);
    await execAll(batch);
  }

  /**
   * Registers a version under its entry's owner: 'foreign' when another owner's versions hold the
   * id, unless `anyOwner` (an admin's publication) adds to it whoever owns it.
   */
  register(entry: RegisteredEntry, anyOwner = false): Promise<RegisterOutcome> {
    return this.registerScript(
      [this.keys.registry.skillVersions(entry.id), this.keys.registry.skillIds()],
      [entry.version, JSON.stringify(entry), entry.digest, entry.id, entry.owner ?? '', anyOwner ? '1' : '0'],
    );
  }

  /** Marks a version deprecated (or, with null, not); false when no such version exists. */
  async deprecate(id: string, version: string, deprecation: Deprecation | null): Promise<boolean> {
    if (!(await this.redis.hexists(this.keys.registry.skillVersions(id), version))) return false;
    if (deprecation)
      await this.redis.hset(this.keys.registry.deprecations(id), version, JSON.stringify(deprecation));
    else await this.redis.hdel(this.keys.registry.deprecations(id), version);
    return true;
  }

  /**
   * Sets an operator's approval policy for every version of a skill (null: none, each version's
   * own applies); false when no version of it exists.
   */
  async setApproval(id: string, setting: OperatorApproval | null): Promise<boolean> {
    if ((await this.redis.hlen(this.keys.registry.skillVersions(id))) === 0) return false;
    if (setting) await this.redis.hset(this.keys.registry.approvals(), id, JSON.stringify(setting));
    else await this.redis.hdel(this.keys.registry.approvals(), id);
    return true;
  }

  /** Every version of one skill, available or not. */
  async versions(id: string, now = Date.now()): Promise<RegistryVersion[]> {
    return (await this.versionsOf([id], now)).get(id) ?? [];
  }

  /** Every version of each skill, in two round trips whatever the number of skills. */
  async versionsOf(ids: string[], now = Date.now()): Promise<Map<string, RegistryVersion[]>> {
    const reads = this.redis.pipeline();
    for (const id of ids)
      reads
        .hgetall(this.keys.registry.skillVersions(id))
        .hgetall(this.keys.registry.deprecations(id))
        .hget(this.keys.registry.approvals(), id);
    const replies = (await execAll(reads)) as (Record<string, string> | string | null)[];
    const replyOf = (index: number, part: 0 | 1) =>
      (replies[index * 3 + part] ?? {}) as Record<string, string>;
    const entries = ids.map((_, index) =>
      Object.values(replyOf(index, 0)).map((json) => JSON.parse(json) as RegistryEntry),
    );
    const hosted = entries.flat().filter((entry) => entry.source === 'hosted');
    // The latest lease of each hosted version: live if it runs past now, lapsed if it ended lately;
    // and whether its pool scales to zero, which keeps it available without any lease.
    const leases = this.redis.pipeline();
    for (const entry of hosted)
      leases.zrange(this.keys.registry.skillHosts(entry.id, entry.version), -1, -1, 'WITHSCORES');
    if (hosted.length > 0)
      leases.hmget(
        this.keys.registry.dormantVersions(),
        ...hosted.map((entry) => `${entry.id}@${entry.version}`),
      );
    const hostReplies = hosted.length > 0 ? ((await execAll(leases)) as (string | null)[][]) : [];
    const marks = hostReplies.at(-1) ?? [];
    const until = new Map<RegistryEntry, number>(
      hosted.map((entry, index) => [entry, Number(hostReplies[index]?.[1] ?? 0)]),
    );
    const scalesToZero = new Set<RegistryEntry>(hosted.filter((_, index) => marks[index] != null));
    const result = new Map<string, RegistryVersion[]>();
    ids.forEach((id, index) => {
      const deprecations = replyOf(index, 1);
      const approval = replies[index * 3 + 2];
      const versions = (entries[index] ?? []).map((entry) => {
        const deprecation = deprecations[entry.version];
        const leaseEnd = until.get(entry) ?? 0;
        const live = leaseEnd > now;
        const dormant = !live && scalesToZero.has(entry);
        return {
          ...entry,
          available: entry.source === 'registered' || live || dormant,
          ...(dormant ? { dormant: true } : {}),
          ...(entry.source === 'hosted' && !live && !dormant && leaseEnd > now - LAPSE_GRACE_MS
            ? { lapsed: true }
            : {}),
          ...(deprecation ? { deprecation: JSON.parse(deprecation) as Deprecation } : {}),
          ...(typeof approval === 'string'
            ? { operatorApproval: JSON.parse(approval) as OperatorApproval }
            : {}),
        };
      });
      if (versions.length > 0) result.set(id, versions);
    });
    return result;
  }

  /** Up to `count` skill ids after `after`, in lexical order: a stable order for cursors. */
  ids(after: string | undefined, count: number): Promise<string[]> {
    const min = after === undefined ? '-' : `(${after}`;
    return this.redis.zrangebylex(this.keys.registry.skillIds(), min, '+', 'LIMIT', 0, count);
  }

  /** The versions marked by pools that scale to zero, whether a worker hosts them now or not. */
  async scaleToZeroVersions(): Promise<VersionRef[]> {
    const fields = await this.redis.hkeys(this.keys.registry.dormantVersions());
    return fields.map((field) => {
      // Hosted skill ids hold no '@' (skill.json's name pattern): the first one ends the id.
      const at = field.indexOf('@');
      return { skill: field.slice(0, at), version: field.slice(at + 1) };
    });
  }

  /**
   * Takes away a version's scale-to-zero mark, once its pool is gone: without a worker it is then
   * unavailable, as any hosted version is. 'hosted' while a worker holds a live lease on it.
   */
  forgetDormant(id: string, version: string, now = Date.now()): Promise<ForgetDormantOutcome> {
    return this.forgetDormantScript(
      [this.keys.registry.dormantVersions(), this.keys.registry.skillHosts(id, version)],
      [`${id}@${version}`, now],
    );
  }

  /** How many worker processes hold an unexpired lease. */
  liveWorkers(now = Date.now()): Promise<number> {
    return this.redis.zcount(this.keys.registry.workers(), now, '+inf');
  }
}
