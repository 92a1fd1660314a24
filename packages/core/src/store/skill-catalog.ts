import type { Redis } from 'ioredis';
import { execAll } from '../redis/exec-all';
import type { SkillDefinition } from '../schemas/skill-definition';
import type { RedisKeys } from './redis-keys';

export interface WorkerLease {
  workerId: string;
  skills: SkillDefinition[];
  leaseMs: number;
}

/**
 * Which skills live workers host. Each worker renews a lease on its skills; a skill is known while
 * at least one lease on it is unexpired, so the gateway (which has no skill code) can discover,
 * describe and validate it.
 */
export class SkillCatalog {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async advertise({ workerId, skills, leaseMs }: WorkerLease, now = Date.now()): Promise<void> {
    const expiresAt = now + leaseMs;
    const batch = this.redis.multi().zadd(this.keys.workers(), expiresAt, workerId);
    batch.zremrangebyscore(this.keys.workers(), '-inf', now);
    for (const skill of skills) {
      batch.hset(this.keys.skills(), skill.name, JSON.stringify(skill));
      batch.zadd(this.keys.skillHosts(skill.name), expiresAt, workerId);
      batch.zremrangebyscore(this.keys.skillHosts(skill.name), '-inf', now);
    }
    await execAll(batch);
  }

  async withdraw(workerId: string, skillIds: string[]): Promise<void> {
    const batch = this.redis.multi().zrem(this.keys.workers(), workerId);
    for (const id of skillIds) batch.zrem(this.keys.skillHosts(id), workerId);
    await execAll(batch);
  }

  /** The definition of a skill hosted by at least one live worker, or null. */
  async get(skillId: string, now = Date.now()): Promise<SkillDefinition | null> {
    const [definition, hosts] = (await execAll(
      this.redis
        .pipeline()
        .hget(this.keys.skills(), skillId)
        .zcount(this.keys.skillHosts(skillId), now, '+inf'),
    )) as [string | null, number];
    return definition && hosts > 0 ? (JSON.parse(definition) as SkillDefinition) : null;
  }

  /** Every skill hosted by at least one live worker, sorted by id. */
  async list(now = Date.now()): Promise<SkillDefinition[]> {
    const all = await this.redis.hgetall(this.keys.skills());
    const ids = Object.keys(all).sort();
    const batch = this.redis.pipeline();
    for (const id of ids) batch.zcount(this.keys.skillHosts(id), now, '+inf');
    const counts = await execAll(batch);
    return ids.flatMap((id, index) =>
      Number(counts[index] ?? 0) > 0 ? [JSON.parse(all[id] as string) as SkillDefinition] : [],
    );
  }

  /** How many worker processes hold an unexpired lease. */
  liveWorkers(now = Date.now()): Promise<number> {
    return this.redis.zcount(this.keys.workers(), now, '+inf');
  }
}
