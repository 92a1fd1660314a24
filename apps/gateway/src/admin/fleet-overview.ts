import {
  type QueueRegistry,
  queueHeadAges,
  queueJobsByState,
  type RedisKeys,
  type SkillPauses,
  type SkillRegistry,
} from '@skillrun/core/data';
import type { Redis } from 'ioredis';
import type { Fleet, FleetQueue, FleetWorker } from './fleet';

export interface FleetOverviewDeps {
  redis: Redis;
  keys: RedisKeys;
  registry: SkillRegistry;
  queues: QueueRegistry;
  pauses: SkillPauses;
}

/** How many skill ids one read of the registry goes through at most. */
const MAX_SKILLS = 1000;

/**
 * The workers alive now (a lease in the registry) with the skill versions each hosts, and each
 * hosted version's queues: jobs waiting, active and delayed, the age of the oldest in line, and
 * whether an operator paused its skill.
 * Read from Redis on request (the registry's leases, BullMQ's counts), the same numbers the workers'
 * `skillrun_queue_*` gauges show.
 */
export class FleetOverview {
  constructor(private readonly deps: FleetOverviewDeps) {}

  async read(now = Date.now()): Promise<Fleet> {
    const { redis, keys, registry } = this.deps;
    const ids = await registry.ids(undefined, MAX_SKILLS);
    const versions = await registry.versionsOf(ids, now);
    const hosted = [...versions.values()]
      .flat()
      .filter((entry) => entry.source === 'hosted' && entry.available)
      .map((entry) => ({ skill_id: entry.id, version: entry.version }));
    const leases = (await redis.zrangebyscore(
      keys.registry.workers(),
      now,
      '+inf',
      'WITHSCORES',
    )) as string[];
    const workers = new Map<string, FleetWorker>();
    for (let index = 0; index + 1 < leases.length; index += 2) {
      const id = leases[index] as string;
      workers.set(id, {
        worker_id: id,
        lease_expires_at: new Date(Number(leases[index + 1])).toISOString(),
        hosts: [],
      });
    }
    const hosts = redis.pipeline();
    for (const version of hosted)
      hosts.zrangebyscore(keys.registry.skillHosts(version.skill_id, version.version), now, '+inf');
    const hostReplies = hosted.length > 0 ? ((await hosts.exec()) ?? []) : [];
    const paused = await this.deps.pauses.all();
    const queues = await Promise.all(
      hosted.map(async (version, index) => {
        const holders = (hostReplies[index]?.[1] as string[] | undefined) ?? [];
        for (const holder of holders) workers.get(holder)?.hosts.push(version);
        const queue = await this.queueOf(version.skill_id, version.version, holders.length, now);
        return { ...queue, paused: paused.has(version.skill_id) };
      }),
    );
    return {
      workers: [...workers.values()].sort((a, b) => a.worker_id.localeCompare(b.worker_id)),
      queues: queues.sort((a, b) => `${a.skill_id}@${a.version}`.localeCompare(`${b.skill_id}@${b.version}`)),
      read_at: new Date(now).toISOString(),
    };
  }

  private async queueOf(
    skillId: string,
    version: string,
    workers: number,
    now: number,
  ): Promise<Omit<FleetQueue, 'paused'>> {
    const versions = [{ skill: skillId, version }];
    const [[counts], [age = 0]] = await Promise.all([
      queueJobsByState(this.deps.queues, versions),
      queueHeadAges(this.deps.queues, versions, now),
    ]);
    return {
      skill_id: skillId,
      version,
      waiting: counts?.get('waiting') ?? 0,
      active: counts?.get('active') ?? 0,
      delayed: counts?.get('delayed') ?? 0,
      // In tenths of a second: the console shows no finer.
      oldest_waiting_seconds: Math.round(age * 10) / 10,
      workers,
    };
  }
}
