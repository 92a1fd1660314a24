import { type Logger, OutboundHttp, SkillError, SkillSchemas } from '@skillrun/core';
import { TaskNotes } from '@skillrun/core/a2a';
import {
  ConcurrencyGate,
  createRedis,
  ExecutionEngine,
  ExecutionStore,
  ProviderCredentialsStore,
  QueueRegistry,
  RateStarts,
  ReadinessCheck,
  RedisKeys,
  RedisLiveness,
  remoteQueueName,
  SkillPauses,
  SkillRegistry,
  SkillResolver,
  SlotHandover,
  skillQueueName,
  TaskStore,
  WEBHOOK_QUEUE,
  WebhookDeliveries,
  WebhookStore,
} from '@skillrun/core/data';
import { queueTelemetry } from '@skillrun/telemetry';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { AttemptRunner } from './attempt-runner';
import { CodeBody } from './bodies/code-body';
import { CompositeBody } from './bodies/composite-body';
import { KnowledgeBody } from './bodies/knowledge-body';
import { LlmBody } from './bodies/llm-body';
import { RemoteBody } from './bodies/remote-body';
import { TaskBody } from './bodies/task-body';
import { Cancellations } from './cancellations';
import { DeadlineSweeper } from './composite/deadline-sweeper';
import { StepLauncher } from './composite/step-launcher';
import { StepWakeups } from './composite/step-wakeups';
import { WaitingComposites } from './composite/waiting-composites';
import type { WorkerConfig } from './config';
import type { SlotLane } from './execution-slots';
import { ExecutionSlots } from './execution-slots';
import { FlowControl } from './flow/flow-control';
import { SkillStarts } from './flow/skill-starts';
import { HostedSkills } from './hosted-skills';
import { LlmClient } from './llm/llm-client';
import type { LoadedSkill } from './loaded-skill';
import { MetricsServer } from './metrics/metrics-server';
import { registerRedisGauges } from './metrics/redis-gauges';
import type { WorkerMetrics } from './metrics/worker-metrics';
import { ModuleBundler } from './module-bundler';
import { PendingOutcomes } from './pending-outcomes';
import { QueueConsumer, type StartGate } from './queue-consumer';
import { ProviderAuth } from './remote/provider-auth';
import { RemoteProvider } from './remote/remote-provider';
import { RemoteSkills } from './remote/remote-skills';
import type { RunningJobs } from './running-jobs';
import { SANDBOX_THREAD_ENTRY, SkillSandbox } from './sandbox/skill-sandbox';
import { SkillAdvertiser } from './skill-advertiser';
import { loadSkills } from './skill-loader';
import { SkillReloader } from './skill-reloader';
import { SkillWatcher } from './skill-watcher';
import { recordStalledFailure } from './stalled-failure';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher';
import { WebhookSender } from './webhooks/webhook-sender';

/** What a worker process is made of, wired and not started yet. */
export interface WorkerParts {
  /** Each hosted version as last loaded. */
  hosted: HostedSkills;
  redis: Redis;
  registry: SkillRegistry;
  queues: QueueRegistry;
  bundler: ModuleBundler;
  sandbox: SkillSandbox;
  /** The cancel requests this worker hears, on a subscriber connection of its own (started by `start`). */
  cancellations: Cancellations;
  /** A consumer per queue of each hosted skill, all sharing the process's slots (started by `start`). */
  consumers: QueueConsumer[];
  sweeper: DeadlineSweeper;
  advertiser: SkillAdvertiser;
  /** Loading skills again as their files change, with SKILLS_WATCH (started by `start`). */
  watcher?: SkillWatcher;
  metricsServer: MetricsServer;
  /** What /readyz and /metrics read, on a connection of its own (see probeParts). */
  probe: { redis: Redis; queues: QueueRegistry };
  llm: LlmBody;
  /** Dispatching and sending webhook deliveries, unless WORKER_WEBHOOKS is off. */
  webhooks?: WebhookParts;
}

export interface WebhookParts {
  dispatchers: WebhookDispatcher[];
  /** The BullMQ worker of the webhook queue (it starts sending as soon as it exists). */
  sender: Worker;
  http: OutboundHttp;
}

export interface WorkerContext {
  config: WorkerConfig;
  logger: Logger;
  metrics: WorkerMetrics;
  running: RunningJobs;
  env: NodeJS.ProcessEnv;
}

/**
 * Loads the skills and wires every part of a worker process: the composition root, nothing more
 * (nothing waits for Redis, which may not answer yet).
 */
export async function buildWorker(context: WorkerContext): Promise<WorkerParts> {
  const { config, logger, metrics } = context;
  const schemas = new SkillSchemas();
  const bundler = await ModuleBundler.create();
  const skills = selectSkills(await loadSkills(config.SKILLS_DIR, schemas, bundler), config.WORKER_SKILLS);
  // Every connection of the process is watched: this one, and its duplicates (BullMQ's too).
  const liveness = new RedisLiveness({
    intervalMs: config.REDIS_LIVENESS_MS,
    target: config.redisTarget,
    logger,
  });
  const redis = createRedis(config.redisTarget, { role: 'queue', liveness });
  const keys = new RedisKeys(config.KEY_PREFIX, config.REDIS_SHARDS);
  const registry = new SkillRegistry(redis, keys);
  const queues = new QueueRegistry(redis, config.KEY_PREFIX, queueTelemetry(), config.REDIS_SHARDS);
  const gate = new ConcurrencyGate(redis, keys);
  const handover = new SlotHandover(gate, queues);
  const store = new ExecutionStore(redis, keys, config.EXECUTION_TTL_SECONDS, {
    expired: (id) => handover.ended(id),
  });
  const outcomes = new PendingOutcomes((call) => store.transitions.send(call));
  const waiting = new WaitingComposites(redis, keys);
  const stream = { maxChunkBytes: config.MAX_CHUNK_BYTES, maxStreamBytes: config.MAX_STREAM_BYTES };
  const sandbox = new SkillSandbox({
    threadModule: await bundler.bundle('_sandbox-thread', SANDBOX_THREAD_ENTRY),
    threads: config.SANDBOX_THREADS,
    memoryLimitMb: config.SANDBOX_THREAD_MEMORY_MB,
    skillMemoryLimitsMb: declaredMemoryLimits(skills),
    abortGraceMs: config.ABORT_GRACE_MS,
    logger,
    memory: { target: config.redisTarget, prefix: config.KEY_PREFIX, livenessMs: config.REDIS_LIVENESS_MS },
    stream,
  });
  // Jobs are taken once the consumers start: their deadlines must not run while threads load.
  await sandbox.ready();
  const llm = llmBody(context, store, schemas);
  const cancellations = new Cancellations({
    subscriber: redis.duplicate(),
    channel: keys.canceled(),
    logger,
  });
  const composite = {
    store,
    waiting,
    steps: new StepLauncher({
      resolver: new SkillResolver(registry, () => true, config.SKILL_CACHE_MS),
      engine: new ExecutionEngine({
        redis,
        keys,
        store,
        queues,
        handover,
        retryBackoffMs: config.RETRY_BACKOFF_MS,
      }),
      schemas,
      store,
    }),
  };
  const flow = new FlowControl({ gate, handover, metrics });
  const wakeups = new StepWakeups({ store, queues });
  const runner = new AttemptRunner({
    outcomes,
    cancellations,
    store,
    schemas,
    logger,
    retryBackoffMs: config.RETRY_BACKOFF_MS,
    maxOutputBytes: config.MAX_OUTPUT_BYTES,
    stream,
    workerId: config.WORKER_ID,
    progressIntervalMs: config.PROGRESS_INTERVAL_MS,
    bodies: {
      code: new CodeBody(sandbox),
      llm,
      composite: new CompositeBody({ ...composite, sandbox }),
      knowledge: new KnowledgeBody(),
      task: new TaskBody(new TaskStore(redis, keys)),
      remote: remoteBody(context, redis, keys, store),
    },
    metrics,
    flow,
  });
  const slots = new ExecutionSlots(config.WORKER_CONCURRENCY);
  const tags = keys.shards.tags();
  const consumer = { context, runner, connection: redis, liveness, store, slots, outcomes, tags };
  const probe = probeParts(context, skills, liveness);
  const hosted = new HostedSkills(skills);
  const rate = new RateStarts(redis, keys);
  const advertiser = new SkillAdvertiser({
    registry,
    pauses: new SkillPauses({ redis, keys, queues, registry }),
    workerId: config.WORKER_ID,
    skills,
    intervalMs: config.HEARTBEAT_INTERVAL_MS,
    scaleToZero: config.WORKER_SCALE_TO_ZERO,
    logger,
  });
  const reloader = new SkillReloader({ hosted, schemas, bundler, registry, advertiser, sandbox });
  return {
    hosted,
    redis,
    registry,
    queues,
    bundler,
    sandbox,
    cancellations,
    consumers: [
      ...skills.flatMap((skill) => {
        const { name, version } = skill.definition;
        const definition = () => hosted.current(name, version).definition;
        return consume(
          consumer,
          (lane) => skillQueueName(name, version, lane),
          async () => hosted.current(name, version),
          {
            // A job's end freed its concurrency slots (unless it is retried): parked executions get
            // them; a step launched apart from its composite wakes it.
            released: async (job) => {
              await flow.released(job, definition());
              await wakeups.ended(job);
            },
            starts: new SkillStarts(rate, definition, metrics),
          },
        );
      }),
      ...(config.WORKER_REMOTE
        ? consumeRemote(consumer, new RemoteSkills(registry, config.SKILL_CACHE_MS))
        : []),
    ],
    sweeper: new DeadlineSweeper({
      waiting,
      store,
      queues,
      logger,
      intervalMs: config.COMPOSITE_SWEEP_INTERVAL_MS,
      metrics,
    }),
    advertiser,
    ...(config.SKILLS_WATCH ? { watcher: new SkillWatcher({ hosted, reloader, logger }) } : {}),
    metricsServer: new MetricsServer(metrics.registry, probe.readiness),
    probe: { redis: probe.redis, queues: probe.queues },
    llm,
    ...(config.WORKER_WEBHOOKS
      ? { webhooks: webhookParts(context, { redis, liveness }, keys, store, queues) }
      : {}),
  };
}

/**
 * The webhook dispatchers (notifications streams → deliveries) and the sender of deliveries, on the
 * webhook queue with a concurrency of its own, so a slow or dead receiver holds no execution slot.
 */
function webhookParts(
  context: WorkerContext,
  { redis, liveness }: QueueConnection,
  keys: RedisKeys,
  store: ExecutionStore,
  queues: QueueRegistry,
): WebhookParts {
  const { config, logger } = context;
  const webhooks = new WebhookStore(redis, keys, config.EXECUTION_TTL_SECONDS);
  const deliveries = new WebhookDeliveries(redis, keys);
  const http = new OutboundHttp({
    allow: config.OUTBOUND_ALLOW?.split(',') ?? [],
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    // What a receiver answers is not read: a little of it is enough to finish the exchange.
    maxResponseBytes: 64 * 1024,
  });
  const sender = new WebhookSender({ deliveries, webhooks, http, logger });
  const worker = new Worker(WEBHOOK_QUEUE, (job) => sender.deliver(job), {
    connection: redis,
    prefix: config.KEY_PREFIX,
    concurrency: config.WEBHOOK_CONCURRENCY,
    runRetryDelay: liveness.intervalMs,
    name: config.WORKER_ID,
    telemetry: queueTelemetry(),
  });
  logQueueErrors(worker, { redis, liveness }, logger);
  const notes = new TaskNotes(redis, keys, config.EXECUTION_TTL_SECONDS);
  // One per notifications stream (a blocking read each: on a cluster they sit on different masters).
  const dispatchers = keys.notificationStreams().map(
    (stream) =>
      new WebhookDispatcher({
        redis: redis.duplicate(),
        stream,
        store,
        webhooks,
        notes,
        deliveries,
        queue: queues.webhooks(),
        consumer: config.WORKER_ID,
        attempts: config.WEBHOOK_ATTEMPTS,
        backoffMs: config.WEBHOOK_BACKOFF_MS,
        logger,
      }),
  );
  return { dispatchers, sender: worker, http };
}

interface Consumer {
  context: WorkerContext;
  runner: AttemptRunner;
  connection: Redis;
  liveness: RedisLiveness;
  store: ExecutionStore;
  slots: ExecutionSlots;
  outcomes: PendingOutcomes;
  /** The hash tags a queue is consumed on (ShardMap.tags: the prefix, then each active vshard's). */
  tags: string[];
}

/** A hosted skill's flow control, as its consumers see it. */
interface FlowOptions {
  /** Told of each job BullMQ ended (its concurrency slots may be free). */
  released?: (job: Job) => Promise<void>;
  /** Its rate limit's starts. */
  starts?: StartGate;
}

/**
 * A consumer of each of a skill's queues (or the remote queues) on each hash tag, high priority
 * first, all sharing the process's slots; `skillOf` gives the skill a job is an execution of. An attempt's outcome is
 * written as its run ends, before its job is.
 */
function consume(
  { context, runner, connection, liveness, store, slots, outcomes, tags }: Consumer,
  queueOf: (lane: SlotLane) => string,
  skillOf: (job: Job) => Promise<LoadedSkill>,
  { released, starts }: FlowOptions = {},
): QueueConsumer[] {
  const { config, logger, metrics, running } = context;
  const run = async (job: Job, token: string, start?: string) =>
    runner.run(job, token, await skillOf(job), start);
  const lanes = tags.flatMap((tag) => (['high', 'normal'] as const).map((lane) => ({ tag, lane })));
  return lanes.map(({ tag, lane }) => {
    const consumer = new QueueConsumer({
      queue: queueOf(lane),
      lane,
      slots,
      handler: (job, token, start) => running.track(job, token, () => run(job, token, start)),
      ...(starts ? { starts } : {}),
      // The store and the consumers share one connection (`connection`): the outcome is run first.
      settle: (job) => outcomes.write(String(job.id)),
      givenUp: (job) =>
        void recordStalledFailure(job, { store, metrics, logger })
          .then(() => released?.(job))
          .catch(() => {}),
      ...(released ? { ended: (job: Job) => void released(job).catch(() => {}) } : {}),
      worker: {
        connection,
        prefix: tag,
        lockDuration: config.JOB_LOCK_MS,
        stalledInterval: config.STALLED_CHECK_INTERVAL_MS,
        // After a fetch lost with its connection: again once the connection can be back.
        runRetryDelay: liveness.intervalMs,
        // BullMQ records it on the job (processedBy) when it takes it: status names the worker.
        name: config.WORKER_ID,
        // The attempt's span, a child of the invocation's (see queueTelemetry).
        telemetry: queueTelemetry(),
      },
    });
    logQueueErrors(consumer.worker, { redis: connection, liveness }, logger);
    return consumer;
  });
}

/** A queue's connection (BullMQ makes its others from it) and what watches them all. */
interface QueueConnection {
  redis: Redis;
  liveness: RedisLiveness;
}

/**
 * A queue's errors, unless the worker's connection is not ready or an incident of the liveness
 * check is open: Redis away is said by RedisWatch, at a slow pace, and a silent Redis by
 * RedisLiveness, once, where each of the queue's connections would say it at every reconnect attempt.
 */
function logQueueErrors(worker: Worker, { redis, liveness }: QueueConnection, logger: Logger): void {
  worker.on('error', (error) => {
    if (redis.status === 'ready' && liveness.answering)
      logger.warn({ err: error.message, queue: worker.name }, 'queue error');
  });
}

/**
 * The remote queues: executions of skills registered from elsewhere, each run with its version's
 * descriptor. One whose version the registry no longer has fails at once with SKILL_NOT_FOUND.
 */
function consumeRemote(consumer: Consumer, remote: RemoteSkills): QueueConsumer[] {
  return consume(
    consumer,
    (lane) => remoteQueueName(lane),
    async (job) => {
      const data = job.data as { execution_id?: unknown; skill_id?: unknown; skill_version?: unknown };
      const skill = await remote.get(String(data.skill_id), String(data.skill_version));
      if (skill) return skill;
      const error = new SkillError(
        'SKILL_NOT_FOUND',
        `${String(data.skill_id)}@${String(data.skill_version)} is no longer registered`,
        { recoverable: false },
      );
      if (typeof data.execution_id === 'string') {
        await consumer.store.transitions.fail(data.execution_id, 'failed', error.toBody()).catch(() => {});
      }
      throw new UnrecoverableError(error.message);
    },
  );
}

/** The body of skills registered from elsewhere: their providers, called safely (OutboundHttp). */
function remoteBody(
  context: WorkerContext,
  redis: Redis,
  keys: RedisKeys,
  store: ExecutionStore,
): RemoteBody {
  const { config } = context;
  const http = new OutboundHttp({
    allow: config.OUTBOUND_ALLOW?.split(',') ?? [],
    timeoutMs: config.OUTBOUND_TIMEOUT_MS,
    maxResponseBytes: config.MAX_OUTPUT_BYTES * 2,
  });
  const credentials =
    config.PROVIDER_SECRETS_KEY === undefined
      ? undefined
      : new ProviderCredentialsStore(redis, keys, config.PROVIDER_SECRETS_KEY);
  return new RemoteBody({ provider: new RemoteProvider(http, new ProviderAuth(credentials, http)), store });
}

/**
 * The hosted skills' metrics, the gauges read from Redis at scrape time, and the readiness check.
 * They use a connection of their own that fails fast: a scrape or probe while Redis is away must
 * neither hang nor pile up commands for later, as the workers' connection (which waits) would.
 */
function probeParts(
  { config, metrics }: WorkerContext,
  skills: LoadedSkill[],
  liveness: RedisLiveness,
): { redis: Redis; queues: QueueRegistry; readiness: ReadinessCheck } {
  const keys = new RedisKeys(config.KEY_PREFIX, config.REDIS_SHARDS);
  const timeoutMs = config.REDIS_TIMEOUT_MS;
  const redis = createRedis(config.redisTarget, { role: 'request', commandTimeoutMs: timeoutMs, liveness });
  const queues = new QueueRegistry(redis, config.KEY_PREFIX, queueTelemetry(), config.REDIS_SHARDS);
  const hosted = skills.map(({ definition }) => ({
    skill: definition.name,
    version: definition.version,
  }));
  metrics.host(hosted.map(({ skill }) => skill));
  const readiness = new ReadinessCheck({ redis, tags: keys.shards.tags(), timeoutMs });
  registerRedisGauges(metrics.registry, {
    hosted,
    queues,
    registry: new SkillRegistry(redis, keys),
    readiness,
    timeoutMs,
    gated: {
      skills: [
        ...new Set(
          skills.filter(({ definition }) => definition.concurrency).map(({ definition }) => definition.name),
        ),
      ],
      gate: new ConcurrencyGate(redis, keys),
    },
  });
  return { redis, queues, readiness };
}

function llmBody(
  { config, env, metrics }: WorkerContext,
  store: ExecutionStore,
  schemas: SkillSchemas,
): LlmBody {
  return new LlmBody({
    client: new LlmClient(),
    defaults: {
      ...(config.LLM_BASE_URL ? { baseUrl: config.LLM_BASE_URL } : {}),
      ...(config.LLM_API_KEY ? { apiKey: config.LLM_API_KEY } : {}),
      ...(config.LLM_MODEL ? { model: config.LLM_MODEL } : {}),
      structuredOutput: config.LLM_STRUCTURED_OUTPUT,
      maxRetries: config.LLM_MAX_RETRIES,
    },
    env,
    schemas,
    store,
    onUsage: (skill, usage) => metrics.llmUsage(skill.definition.name, usage),
  });
}

/** The thread memory limits the hosted skills that run in threads declare (skill.json memory_mb). */
function declaredMemoryLimits(skills: LoadedSkill[]): number[] {
  return skills.flatMap(({ body }) =>
    'code' in body && body.code.isolation === 'thread' && body.code.memoryMb !== undefined
      ? [body.code.memoryMb]
      : [],
  );
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
