import {
  createLogger,
  createRedis,
  ExecutionLauncher,
  ExecutionStore,
  type Logger,
  QueueRegistry,
  RedisKeys,
  SkillRegistry,
  SkillResolver,
  SkillSchemas,
  skillQueueName,
} from '@skillrun/core';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { AttemptRunner } from './attempt-runner';
import { CodeBody } from './bodies/code-body';
import { LlmBody } from './bodies/llm-body';
import { checkComposites } from './composite/check-composites';
import { DeadlineSweeper } from './composite/deadline-sweeper';
import { PipelineBody } from './composite/pipeline-body';
import { StepLauncher } from './composite/step-launcher';
import { WaitingComposites } from './composite/waiting-composites';
import type { WorkerConfig } from './config';
import { LlmClient } from './llm/llm-client';
import { MetricsServer } from './metrics/metrics-server';
import { WorkerMetrics } from './metrics/worker-metrics';
import { ModuleBundler } from './module-bundler';
import { SANDBOX_THREAD_ENTRY, SkillSandbox } from './sandbox/skill-sandbox';
import { SkillAdvertiser } from './skill-advertiser';
import { type LoadedSkill, loadSkills } from './skill-loader';

/**
 * A worker process: loads its skills, consumes each skill's queue with BullMQ, runs attempts by
 * the skill's body (a thread for code, a provider for llm, steps for composites), and advertises
 * what it hosts. `start()` and `close()` are the whole lifecycle.
 */
export class WorkerService {
  readonly logger: Logger;
  private redis: Redis | undefined;
  private sandbox: SkillSandbox | undefined;
  private bundler: ModuleBundler | undefined;
  private advertiser: SkillAdvertiser | undefined;
  private sweeper: DeadlineSweeper | undefined;
  private queues: QueueRegistry | undefined;
  private workers: Worker[] = [];
  private metricsServer: MetricsServer | undefined;
  readonly metrics = new WorkerMetrics();
  skills: LoadedSkill[] = [];

  constructor(
    private readonly config: WorkerConfig,
    logger?: Logger,
    private readonly env: NodeJS.ProcessEnv = process.env,
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
    const registry = new SkillRegistry(redis, keys);
    await checkComposites(this.skills, registry);
    const store = new ExecutionStore(redis, keys, config.EXECUTION_TTL_SECONDS);
    this.queues = new QueueRegistry(redis, config.KEY_PREFIX);
    const waiting = new WaitingComposites(redis, keys);
    this.sandbox = new SkillSandbox({
      threadModule: await bundler.bundle('_sandbox-thread', SANDBOX_THREAD_ENTRY),
      maxThreads: config.WORKER_CONCURRENCY * (this.skills.length + 1),
      abortGraceMs: config.ABORT_GRACE_MS,
    });
    const llm = this.llmBody(store, schemas);
    const composite = {
      store,
      waiting,
      steps: new StepLauncher({
        resolver: new SkillResolver(registry, () => true, config.SKILL_CACHE_MS),
        launcher: new ExecutionLauncher({
          store,
          queues: this.queues,
          retryBackoffMs: config.RETRY_BACKOFF_MS,
        }),
        schemas,
        store,
      }),
    };
    const runner = new AttemptRunner({
      store,
      schemas,
      logger: this.logger,
      retryBackoffMs: config.RETRY_BACKOFF_MS,
      bodies: {
        code: new CodeBody({
          sandbox: this.sandbox,
          store,
          redis: { url: config.REDIS_URL, prefix: config.KEY_PREFIX },
          composite,
        }),
        llm,
        pipeline: new PipelineBody(composite),
      },
      onCompositeEnd: (executionId, attempt) => addStepUsage(store, executionId, attempt),
    });
    this.workers = this.skills.map((skill) => this.consume(skill, runner, redis));
    this.sweeper = new DeadlineSweeper({
      waiting,
      store,
      queues: this.queues,
      logger: this.logger,
      intervalMs: config.COMPOSITE_SWEEP_INTERVAL_MS,
    });
    this.sweeper.start();
    this.advertiser = new SkillAdvertiser({
      registry,
      workerId: config.WORKER_ID,
      skills: this.skills,
      intervalMs: config.HEARTBEAT_INTERVAL_MS,
      logger: this.logger,
    });
    await this.advertiser.start();
    this.warnUnconfiguredLlmSkills(llm);
    this.metricsServer = new MetricsServer(this.metrics.registry);
    const metricsPort = await this.metricsServer.listen(config.METRICS_PORT, config.METRICS_HOST);
    this.logger.info(
      {
        worker_id: config.WORKER_ID,
        metrics_port: metricsPort,
        skills: this.skills.map(({ definition }) => `${definition.name}@${definition.version}`),
      },
      'worker ready',
    );
  }

  /** Stops taking jobs, lets running ones finish, withdraws the skills and disconnects. */
  async close(): Promise<void> {
    await this.advertiser?.close().catch(() => {});
    await Promise.all(this.workers.map((worker) => worker.close()));
    await this.sweeper?.close();
    await this.metricsServer?.close();
    await this.queues?.close();
    await this.sandbox?.close();
    await this.bundler?.close();
    this.redis?.disconnect();
  }

  private consume(skill: LoadedSkill, runner: AttemptRunner, connection: Redis): Worker {
    const { definition } = skill;
    const worker = new Worker(
      skillQueueName(definition.name, definition.version),
      (job, token) => runner.run(job, token, skill),
      { connection, prefix: this.config.KEY_PREFIX, concurrency: this.config.WORKER_CONCURRENCY },
    );
    worker.on('error', (error) =>
      this.logger.warn({ err: error.message, queue: worker.name }, 'queue error'),
    );
    return worker;
  }

  private llmBody(store: ExecutionStore, schemas: SkillSchemas): LlmBody {
    const { config } = this;
    return new LlmBody({
      client: new LlmClient(),
      defaults: {
        ...(config.LLM_BASE_URL ? { baseUrl: config.LLM_BASE_URL } : {}),
        ...(config.LLM_API_KEY ? { apiKey: config.LLM_API_KEY } : {}),
        ...(config.LLM_MODEL ? { model: config.LLM_MODEL } : {}),
        structuredOutput: config.LLM_STRUCTURED_OUTPUT,
        maxRetries: config.LLM_MAX_RETRIES,
      },
      env: this.env,
      schemas,
      store,
      onUsage: (skill, usage) => this.metrics.llmUsage(skill.definition.name, usage),
    });
  }

  /** The service runs without an LLM provider; its llm skills then fail fast, as said here once. */
  private warnUnconfiguredLlmSkills(llm: LlmBody): void {
    for (const skill of this.skills) {
      if (skill.body.kind !== 'llm') continue;
      const resolution = llm.settingsOf(skill);
      if (!resolution.ok) {
        this.logger.warn(
          { skill_id: skill.definition.name, missing: resolution.missing },
          'llm skill has no provider configured; its executions will fail with TOOL_NOT_AVAILABLE',
        );
      }
    }
  }
}

/** A composite's usage is its steps' (of the attempt that just ended) added to its own. */
async function addStepUsage(store: ExecutionStore, executionId: string, attempt: number): Promise<void> {
  const entries = await store.stepEntries(executionId);
  const launched = entries.filter((entry) => entry.attempt === attempt && 'execution_id' in entry);
  const usage = await Promise.all(
    launched.map((entry) => ('execution_id' in entry ? store.usageIncrements(entry.execution_id) : [])),
  );
  await store.addUsage(executionId, usage.flat());
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
