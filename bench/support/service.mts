import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ShardMap } from '@skillrun/core/data';
import { freePort } from '@skillrun/redis-server';
import { nodeArgsOf } from '../../scripts/node-args.mjs';
import { Child, repoRoot } from './child.mjs';
import type { HttpTarget } from './load.mjs';
import type { QueueRef } from './queue-depth.mjs';

/** KEY_PREFIX's default: the service runs with its default settings. */
export const SERVICE_PREFIX = '{skillrun}';
/** Where the bench's skill lives: a no-op, so that the figures measure the service, not a skill. */
export const BENCH_SKILLS = join(repoRoot, 'bench/skills');
const ADMIN_KEY = 'bench-admin-key-0123456789abcdef';
/** A worker bundles its skills with esbuild at start: fifty of them take a while on two cores. */
const START_TIMEOUT_MS = 120_000;

export interface SkillRef {
  id: string;
  version: string;
}

/** The skill's id and version, read from its skill.json (so a new version moves the bench along). */
export function skillIn(folder: string): SkillRef {
  const definition = JSON.parse(readFileSync(join(folder, 'skill.json'), 'utf8')) as {
    name: string;
    version?: string;
  };
  return { id: definition.name, version: definition.version ?? '1.0.0' };
}

/** The BullMQ queue of a hosted skill version (core's skillQueueName: `skill.<id>@<version>`). */
export function serviceQueue(skill: SkillRef, prefix = SERVICE_PREFIX): QueueRef {
  return { prefix, name: `skill.${skill.id}@${skill.version}` };
}

/** Where the service's Redis is: REDIS_URL, or REDIS_CLUSTER_NODES and REDIS_SHARDS. */
export type RedisEnv = Record<string, string>;

export function invocationBody(skillId: string): string {
  return JSON.stringify({
    caller: { id: 'bench', type: 'service' },
    skill_id: skillId,
    inputs: { text: 'hello' },
  });
}

/** A POST /batches body: `size` invocations of the skill, as invocationBody's. */
export function batchBody(skillId: string, size: number): string {
  const item = { skill_id: skillId, inputs: { text: 'hello' } };
  return JSON.stringify({ caller: { id: 'bench', type: 'service' }, items: Array(size).fill(item) });
}

export interface WorkerOptions {
  concurrency?: number;
  skillsDir?: string;
  /** WORKER_SKILLS; all skills found when undefined. */
  skills?: string;
}

export class ServiceWorker {
  constructor(
    readonly child: Child,
    readonly metricsPort: number,
  ) {}
}

/**
 * The service as in production: a gateway process (API-key authentication, validation, metrics,
 * info logs to a pipe) and worker processes, started the way the README says, with default
 * settings except what a figure changes.
 */
export class Service {
  /** POST invokes this gateway has answered (every figure's), for the gateway's memory figure. */
  invocations = 0;
  readonly workers = new Set<ServiceWorker>();
  private defaultWorker: ServiceWorker | undefined;

  private constructor(
    private readonly redisEnv: RedisEnv,
    readonly gateway: Child,
    readonly url: string,
    readonly apiKey: string,
  ) {}

  static async start(redisEnv: RedisEnv): Promise<Service> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const gateway = Child.spawn('gateway', nodeArgsOf('start:gateway'), {
      ...redisEnv,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: url,
      ADMIN_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'info',
    });
    await gateway.ready(/gateway listening/, START_TIMEOUT_MS);
    const answer = await fetch(`${url}/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY },
      body: JSON.stringify({ caller_id: 'bench', scopes: ['skill:invoke', 'skill:read'] }),
    });
    const created = (await answer.json()) as { key?: string };
    if (answer.status !== 201 || !created.key) {
      throw new Error(`POST /admin/keys answered ${answer.status}: ${JSON.stringify(created)}`);
    }
    return new Service(redisEnv, gateway, url, created.key);
  }

  /**
   * A skill's queue on every hash tag its executions may be on: the prefix's, plus each active
   * vshard's at REDIS_SHARDS above 1 (docs/design/sharding.md).
   */
  queues(skill: SkillRef): QueueRef[] {
    const shards = new ShardMap(SERVICE_PREFIX, Number(this.redisEnv.REDIS_SHARDS ?? 1));
    return shards.tags().map((tag) => serviceQueue(skill, tag));
  }

  /** POST /skills/<id>/invoke for each skill, in turn on every connection. */
  target(skillIds: string[] = ['noop']): HttpTarget {
    return {
      url: this.url,
      headers: { 'x-api-key': this.apiKey },
      requests: skillIds.map((id) => ({ path: `/skills/${id}/invoke`, body: invocationBody(id) })),
    };
  }

  /** POST /batches of `size` invocations of the skill, on every connection. */
  batchTarget(size: number, skillId = 'noop'): HttpTarget {
    return {
      url: this.url,
      headers: { 'x-api-key': this.apiKey },
      requests: [{ path: '/batches', body: batchBody(skillId, size) }],
    };
  }

  async startWorker(options: WorkerOptions = {}): Promise<ServiceWorker> {
    const child = Child.spawn('worker', nodeArgsOf('start:worker'), {
      ...this.redisEnv,
      LOG_LEVEL: 'info',
      // Several workers may run at once: each on a free port, read from its ready line.
      METRICS_PORT: '0',
      SKILLS_DIR: options.skillsDir ?? BENCH_SKILLS,
      ...(options.skills === undefined ? {} : { WORKER_SKILLS: options.skills }),
      ...(options.concurrency === undefined ? {} : { WORKER_CONCURRENCY: String(options.concurrency) }),
    });
    const ready = await child.ready(/worker ready/, START_TIMEOUT_MS);
    const worker = new ServiceWorker(child, Number(ready.metrics_port));
    this.workers.add(worker);
    return worker;
  }

  /** The worker of most figures: the bench skill at the default concurrency. */
  async ensureDefaultWorker(): Promise<ServiceWorker> {
    if (!this.defaultWorker?.child.alive) this.defaultWorker = await this.startWorker({ skills: 'noop' });
    return this.defaultWorker;
  }

  async stopWorker(worker: ServiceWorker): Promise<void> {
    this.workers.delete(worker);
    if (worker === this.defaultWorker) this.defaultWorker = undefined;
    await worker.child.stop();
  }

  async stopWorkers(): Promise<void> {
    await Promise.all([...this.workers].map((worker) => this.stopWorker(worker)));
  }

  /** Its workers, then its gateway. */
  async stop(): Promise<void> {
    await this.stopWorkers();
    await this.gateway.stop();
  }
}
