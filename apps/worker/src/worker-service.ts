import { createLogger, type Logger } from '@skillrun/core';
import { RedisWatch } from '@skillrun/core/data';
import type { LlmBody } from './bodies/llm-body';
import { checkComposites } from './composite/check-composites';
import type { WorkerConfig } from './config';
import { RunningJobs } from './consumers/running-jobs';
import { WorkerMetrics } from './metrics/worker-metrics';
import type { LoadedSkill } from './skills/loaded-skill';
import { buildWorker, type WorkerParts } from './worker-parts';

/**
 * A worker process: loads its skills, consumes each skill's queues with BullMQ, runs attempts by
 * the skill's body (a thread for code, a provider for llm, steps for composites), and advertises
 * what it hosts. `start()` and `close()` are the whole lifecycle.
 */
export class WorkerService {
  readonly logger: Logger;
  readonly metrics = new WorkerMetrics();
  private readonly running = new RunningJobs();
  private parts: WorkerParts | undefined;
  private redisWatch: RedisWatch | undefined;

  constructor(
    private readonly config: WorkerConfig,
    logger?: Logger,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    // Every line names the worker, so an execution's lines say which process ran it.
    this.logger = (logger ?? createLogger('worker', config.LOG_LEVEL)).child({ worker_id: config.WORKER_ID });
  }

  get skills(): LoadedSkill[] {
    return this.parts?.skills.hosted.all ?? [];
  }

  async start(): Promise<void> {
    const { config } = this;
    const parts = await buildWorker({
      config,
      logger: this.logger,
      metrics: this.metrics,
      running: this.running,
      env: this.env,
    });
    this.parts = parts;
    this.redisWatch = new RedisWatch(parts.shared.redis, { target: config.redisTarget, logger: this.logger });
    this.redisWatch.start();
    // Alive, and saying what it misses (/readyz), while Redis is waited for.
    const metrics = await parts.metrics.server.listen(config.METRICS_PORT, config.METRICS_HOST);
    await this.redisWatch.ready;
    await checkComposites(parts.skills.hosted.all, parts.shared.registry);
    // Listening before the first job is taken.
    await parts.attempt.cancellations.start();
    for (const consumer of parts.consumers) consumer.start();
    parts.composites.sweeper.start();
    for (const dispatcher of parts.webhooks?.dispatchers ?? []) dispatcher.start();
    await parts.upkeep.advertiser.start();
    parts.upkeep.watcher?.start();
    this.warnUnconfiguredLlmSkills(parts.llm);
    this.logger.info(
      {
        metrics_host: metrics.address,
        metrics_port: metrics.port,
        skills: this.skills.map(({ definition }) => `${definition.name}@${definition.version}`),
        // SKILLS_WATCH: a skill whose files change is loaded again.
        skills_watch: config.SKILLS_WATCH,
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
    this.redisWatch?.close();
    const { parts } = this;
    if (!parts) return;
    parts.upkeep.watcher?.close();
    const drained = this.drain(parts);
    await parts.upkeep.advertiser.close().catch(() => {});
    if (!(await drained)) return;
    await parts.composites.sweeper.close();
    await Promise.all(parts.webhooks?.dispatchers.map((dispatcher) => dispatcher.close()) ?? []);
    await parts.webhooks?.sender.close();
    await parts.webhooks?.http.close();
    await parts.metrics.server.close();
    await parts.metrics.queues.close();
    parts.metrics.redis.disconnect();
    await parts.shared.queues.close();
    await parts.shared.engine.close();
    await parts.sandbox.close();
    parts.attempt.cancellations.close();
    await parts.skills.bundler.close();
    const { endings, redis } = parts.shared;
    if (endings !== redis) endings.disconnect();
    redis.disconnect();
  }

  /**
   * Stops taking jobs at once and waits for the running ones for the grace period; false when some
   * were still running and have been handed back.
   */
  private async drain(parts: WorkerParts): Promise<boolean> {
    const closed = Promise.all(parts.consumers.map((consumer) => consumer.close())).then(() => true);
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
