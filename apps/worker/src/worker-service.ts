import {
  createLogger,
  createRedis,
  ExecutionStore,
  type Logger,
  RedisKeys,
  SkillRegistry,
  SkillSchemas,
  skillQueueName,
} from '@skillrun/core';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { AttemptRunner } from './attempt-runner';
import type { WorkerConfig } from './config';
import { ModuleBundler } from './module-bundler';
import { SANDBOX_THREAD_ENTRY, SkillSandbox } from './sandbox/skill-sandbox';
import { SkillAdvertiser } from './skill-advertiser';
import { type LoadedSkill, loadSkills } from './skill-loader';

/**
 * A worker process: loads its skills, consumes each skill's queue with BullMQ, runs attempts in the
 * thread sandbox, and advertises what it hosts. `start()` and `close()` are the whole lifecycle.
 */
export class WorkerService {
  readonly logger: Logger;
  private redis: Redis | undefined;
  private sandbox: SkillSandbox | undefined;
  private bundler: ModuleBundler | undefined;
  private advertiser: SkillAdvertiser | undefined;
  private workers: Worker[] = [];
  skills: LoadedSkill[] = [];

  constructor(
    private readonly config: WorkerConfig,
    logger?: Logger,
  ) {
    this.logger = logger ?? createLogger('worker', config.LOG_LEVEL);
  }

  async start(): Promise<void> {
    const { config } = this;
    const schemas = new SkillSchemas();
    const bundler = await ModuleBundler.create();
    this.bundler = bundler;
    this.skills = selectSkills(await loadSkills(config.SKILLS_DIR, schemas, bundler), config.WORKER_SKILLS);
    const redis = createRedis(config.REDIS_URL, { role: 'queue' });
    this.redis = redis;
    const keys = new RedisKeys(config.KEY_PREFIX);
    this.sandbox = new SkillSandbox({
      threadModule: await bundler.bundle('_sandbox-thread', SANDBOX_THREAD_ENTRY),
      maxThreads: config.WORKER_CONCURRENCY * (this.skills.length + 1),
      abortGraceMs: config.ABORT_GRACE_MS,
    });
    const runner = new AttemptRunner({
      store: new ExecutionStore(redis, keys, config.EXECUTION_TTL_SECONDS),
      sandbox: this.sandbox,
      schemas,
      logger: this.logger,
      redis: { url: config.REDIS_URL, prefix: config.KEY_PREFIX },
      retryBackoffMs: config.RETRY_BACKOFF_MS,
    });
    this.workers = this.skills.map(
      (skill) =>
        new Worker(
          skillQueueName(skill.definition.name, skill.definition.version),
          (job) => runner.run(job, skill),
          {
            connection: redis,
            prefix: config.KEY_PREFIX,
            concurrency: config.WORKER_CONCURRENCY,
          },
        ),
    );
    for (const worker of this.workers) {
      worker.on('error', (error) =>
        this.logger.warn({ err: error.message, queue: worker.name }, 'queue error'),
      );
    }
    this.advertiser = new SkillAdvertiser({
      registry: new SkillRegistry(redis, keys),
      workerId: config.WORKER_ID,
      skills: this.skills,
      intervalMs: config.HEARTBEAT_INTERVAL_MS,
      logger: this.logger,
    });
    await this.advertiser.start();
    this.logger.info(
      {
        worker_id: config.WORKER_ID,
        skills: this.skills.map(({ definition }) => `${definition.name}@${definition.version}`),
      },
      'worker ready',
    );
  }

  /** Stops taking jobs, lets running ones finish, withdraws the skills and disconnects. */
  async close(): Promise<void> {
    await this.advertiser?.close().catch(() => {});
    await Promise.all(this.workers.map((worker) => worker.close()));
    await this.sandbox?.close();
    await this.bundler?.close();
    this.redis?.disconnect();
  }
}

function selectSkills(skills: LoadedSkill[], only: string | undefined): LoadedSkill[] {
  if (!only) return skills;
  const wanted = new Set(
    only
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean),
  );
  const selects = (skill: LoadedSkill, id: string) =>
    id === skill.definition.name || id === `${skill.definition.name}@${skill.definition.version}`;
  const missing = [...wanted].filter((id) => !skills.some((skill) => selects(skill, id)));
  if (missing.length > 0)
    throw new Error(`WORKER_SKILLS names skills that were not found: ${missing.join(', ')}`);
  return skills.filter((skill) => [...wanted].some((id) => selects(skill, id)));
}
