import {
  createLogger,
  createRedis,
  ExecutionLauncher,
  ExecutionStore,
  type Logger,
  QueueRegistry,
  ReadinessCheck,
  RedisKeys,
  SkillRegistry,
  SkillResolver,
  SkillSchemas,
  skillQueueName,
} from '@skillrun/core';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { AttemptRunner } from './attempt-runner';
import { CodeBody } from './bodies/code-body';
import { LlmBody } from './bodies/llm-body';
import { PipelineBody } from './bodies/pipeline-body';
import { checkComposites } from './composite/check-composites';
import { DeadlineSweeper } from './composite/deadline-sweeper';
import { StepLauncher } from './composite/step-launcher';
import { WaitingComposites } from './composite/waiting-composites';
import type { WorkerConfig } from './config';
import { ExecutionSlots } from './execution-slots';
import { GatedWorker } from './gated-worker';
import { LlmClient } from './llm/llm-client';
import type { LoadedSkill } from './loaded-skill';
import { MetricsServer } from './metrics/metrics-server';
import { registerRedisGauges } from './metrics/redis-gauges';
import { WorkerMetrics } from './metrics/worker-metrics';
import { ModuleBundler } from './module-bundler';
import { RunningJobs } from './running-jobs';
import { SANDBOX_THREAD_ENTRY, SkillSandbox } from './sandbox/skill-sandbox';
import { SkillAdvertiser } from './skill-advertiser';
import { loadSkills } from './skill-loader';
import { recordStalledFailure } from './stalled-failure';

/**
 * A worker process: loads its skills, consumes each skill's queue with BullMQ, runs attempts by
 * the skill's body (a thread for code, a provider for llm, steps for composites), and advertises
 * what it hosts. `start()` and `close()` are the whole lifecycle.
 */
export class WorkerService {
  readonly logger: Logger;
  private redis: Redis | undefined;
  /** What /readyz and /metrics read, on a connection of its own (see watchRedis). */
  private probe: { redis: Redis; queues: QueueRegistry } | undefined;
  private sandbox: SkillSandbox | undefined;
  private bundler: ModuleBundler | undefined;
  private advertiser: SkillAdvertiser | undefined;
  private sweeper: DeadlineSweeper | undefined;
  private queues: QueueRegistry | undefined;
  private workers: Worker[] = [];
  private readonly running = new RunningJobs();
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
    const redis = createRedis(config.redisTarget, { role: 'queue' });
    this.redis = redis;
    const keys = new RedisKeys(config.KEY_PREFIX);
    const registry = new SkillRegistry(redis, keys);
    await checkComposites(this.skills, registry);
    const store = new ExecutionStore(redis, keys, config.EXECUTION_TTL_SECONDS);
    this.queues = new QueueRegistry(redis, config.KEY_PREFIX);
    const waiting = new WaitingComposites(redis, keys);
    this.sandbox = new SkillSandbox({
      threadModule: await bundler.bundle('_sandbox-thread', SANDBOX_THREAD_ENTRY),
      threads: config.SANDBOX_THREADS,
      ...(config.SANDBOX_THREAD_MEMORY_MB === undefined
        ? {}
        : { memoryLimitMb: config.SANDBOX_THREAD_MEMORY_MB }),
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
      progressIntervalMs: config.PROGRESS_INTERVAL_MS,
      bodies: {
        code: new CodeBody({
          sandbox: this.sandbox,
          redis: { target: config.redisTarget, prefix: config.KEY_PREFIX },
          composite,
        }),
        llm,
        pipeline: new PipelineBody(composite),
      },
      onCompositeEnd: (executionId, attempt) => addStepUsage(store, executionId, attempt),
      metrics: this.metrics,
    });
    const slots = new ExecutionSlots(config.WORKER_CONCURRENCY);
    this.workers = this.skills.flatMap((skill) => this.consume(skill, runner, redis, store, slots));
    this.sweeper = new DeadlineSweeper({
      waiting,
      store,
      queues: this.queues,
      logger: this.logger,
      intervalMs: config.COMPOSITE_SWEEP_INTERVAL_MS,
      metrics: this.metrics,
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
    this.metricsServer = new MetricsServer(this.metrics.registry, this.watchRedis(keys));
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

  /**
   * Stops taking jobs, withdraws the skills and lets running ones finish for SHUTDOWN_GRACE_MS.
   * Those still running then go back to their queues for another worker, and this process may
   * exit as it is: what its threads were doing ends with it.
   */
  async close(): Promise<void> {
    const drained = this.drain();
    await this.advertiser?.close().catch(() => {});
    if (!(await drained)) return;
    await this.sweeper?.close();
    await this.metricsServer?.close();
    await this.probe?.queues.close();
    this.probe?.redis.disconnect();
    await this.queues?.close();
    await this.sandbox?.close();
    await this.bundler?.close();
    this.redis?.disconnect();
  }

  /**
   * Stops taking jobs at once and waits for the running ones for the grace period; false when some
   * were still running and have been handed back.
   */
  private async drain(): Promise<boolean> {
    const closed = Promise.all(this.workers.map((worker) => worker.close())).then(() => true);
    const grace = new Promise<false>((resolve) =>
      setTimeout(resolve, this.config.SHUTDOWN_GRACE_MS, false).unref(),
    );
    if (await Promise.race([closed, grace])) return true;
    const handedBack = await this.running.handBack();
    this.logger.warn(
      { grace_ms: this.config.SHUTDOWN_GRACE_MS, execution_ids: handedBack },
      'grace period over: running executions go back to their queues for another worker',
    );
    return false;
  }

  /** A worker on each of the skill's queues, high priority first, all sharing the process's slots. */
  private consume(
    skill: LoadedSkill,
    runner: AttemptRunner,
    connection: Redis,
    store: ExecutionStore,
    slots: ExecutionSlots,
  ): Worker[] {
    const { definition } = skill;
    const { config } = this;
    return (['high', 'normal'] as const).map((lane) => {
      const worker = new GatedWorker(
        skillQueueName(definition.name, definition.version, lane),
        (job, token) => this.running.track(job, token, () => runner.run(job, token, skill)),
        {
          connection,
          prefix: config.KEY_PREFIX,
          lockDuration: config.JOB_LOCK_MS,
          stalledInterval: config.STALLED_CHECK_INTERVAL_MS,
        },
        slots,
        lane,
      );
      worker.on('failed', (job) => {
        if (job) {
          const deps = { store, metrics: this.metrics, logger: this.logger };
          void recordStalledFailure(job, deps).catch(() => {});
        }
      });
      worker.on('error', (error) =>
        this.logger.warn({ err: error.message, queue: worker.name }, 'queue error'),
      );
      return worker;
    });
  }

  /**
   * The hosted skills' metrics, the gauges read from Redis at scrape time, and the readiness check.
   * They use a connection of their own that fails fast: a scrape or probe while Redis is away must
   * neither hang nor pile up commands for later, as the workers' connection (which waits) would.
   */
  private watchRedis(keys: RedisKeys): ReadinessCheck {
    const { config } = this;
    const timeoutMs = config.REDIS_TIMEOUT_MS;
    const redis = createRedis(config.redisTarget, { role: 'request', commandTimeoutMs: timeoutMs });
    const queues = new QueueRegistry(redis, config.KEY_PREFIX);
    this.probe = { redis, queues };
    const hosted = this.skills.map(({ definition }) => ({
      skill: definition.name,
      version: definition.version,
    }));
    this.metrics.host(hosted.map(({ skill }) => skill));
    registerRedisGauges(this.metrics.registry, {
      hosted,
      queues,
      registry: new SkillRegistry(redis, keys),
      timeoutMs,
    });
    return new ReadinessCheck({ redis, keyPrefix: config.KEY_PREFIX, timeoutMs });
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
