import type { QueueRegistry, RedisKeys, SkillRegistry } from '@skillrun/core';
import type { JobType, Queue } from 'bullmq';
import type { Redis } from 'ioredis';

export interface FleetWorker {
  worker_id: string;
  /** When its lease lapses unless renewed (every HEARTBEAT_INTERVAL_MS). */
  lease_expires_at: string;
  hosts: { skill_id: string; version: string }[];
}

export interface FleetQueue {
  skill_id: string;
  version: string;
  /** Jobs by state over the version's queues (normal and high): waiting counts prioritized ones. */
  waiting: number;
  active: number;
  delayed: number;
  /** Seconds the oldest job next in line has waited; 0 when none waits. */
  oldest_waiting_seconds: number;
  /** Live workers hosting it. */
  workers: number;
}

export interface Fleet {
  workers: FleetWorker[];
  queues: FleetQueue[];
  read_at: string;
}

export interface FleetOverviewDeps {
  redis: Redis;
  keys: RedisKeys;
  registry: SkillRegistry;
  queues: QueueRegistry;
}

/** How many skill ids one read of the registry goes through at most. */
const MAX_SKILLS = 1000;
const COUNTED: JobType[] = ['waiting', 'prioritized', 'active', 'delayed'];

/**
 * The workers alive now (a lease in the registry) with the skill versions each hosts, and each
 * hosted version's queues: jobs waiting, active and delayed, and the age of the oldest in line.
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
    const leases = (await redis.zrangebyscore(keys.workers(), now, '+inf', 'WITHSCORES')) as string[];
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
      hosts.zrangebyscore(keys.skillHosts(version.skill_id, version.version), now, '+inf');
    const hostReplies = hosted.length > 0 ? ((await hosts.exec()) ?? []) : [];
    const queues = await Promise.all(
      hosted.map(async (version, index) => {
        const holders = (hostReplies[index]?.[1] as string[] | undefined) ?? [];
        for (const holder of holders) workers.get(holder)?.hosts.push(version);
        return this.queueOf(version.skill_id, version.version, holders.length, now);
      }),
    );
    return {
      workers: [...workers.values()].sort((a, b) => a.worker_id.localeCompare(b.worker_id)),
      queues: queues.sort((a, b) => `${a.skill_id}@${a.version}`.localeCompare(`${b.skill_id}@${b.version}`)),
      read_at: new Date(now).toISOString(),
    };
  }

  private async queueOf(skillId: string, version: string, workers: number, now: number): Promise<FleetQueue> {
    const all = this.deps.queues.allOf(skillId, version);
    const [counts, ages] = await Promise.all([
      Promise.all(all.map((queue) => queue.getJobCounts(...COUNTED))),
      Promise.all(all.map((queue) => headAgeSeconds(queue, now))),
    ]);
    const sum = (...states: string[]) =>
      counts.reduce(
        (total, count) => total + states.reduce((part, state) => part + (count[state] ?? 0), 0),
        0,
      );
    return {
      skill_id: skillId,
      version,
      waiting: sum('waiting', 'prioritized'),
      active: sum('active'),
      delayed: sum('delayed'),
      oldest_waiting_seconds: Math.max(0, ...ages),
      workers,
    };
  }
}

/** The age of the jobs at the head of the FIFO list and of the prioritized set, the older. */
async function headAgeSeconds(queue: Queue, now: number): Promise<number> {
  const heads = await queue.getJobs(['wait', 'prioritized'], 0, 0, true);
  return Math.max(0, ...heads.map((job) => (job ? Math.round((now - job.timestamp) / 100) / 10 : 0)));
}
