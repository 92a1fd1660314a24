import { availableParallelism, hostname } from 'node:os';
import { type Static, Type } from '@sinclair/typebox';
import {
  CommonConfig,
  ConfigError,
  checkShardSettings,
  LlmProviderConfig,
  parseEnv,
  StringEnum,
} from '@skillrun/core';
import { type RedisTarget, redisTargetOf } from '@skillrun/core/data';

export const WorkerConfigSchema = Type.Object({
  ...CommonConfig,
  SKILLS_DIR: Type.Optional(
    Type.String({
      description: 'Folders of skills to host, separated by the path delimiter (":" on Linux).',
    }),
  ),
  SKILLS_WATCH: Type.Optional(
    Type.Boolean({
      description:
        "Whether a hosted skill is loaded again when a file in its folder changes, without a restart: its next executions run the new load, and a load that fails leaves the previous one running (one log line says why). For development: every load stays in the sandbox threads' memory.",
    }),
  ),
  WORKER_SKILLS: Type.Optional(
    Type.String({
      description:
        'Comma-separated skill ids (all their versions) or id@version: host only these of the skills found.',
    }),
  ),
  WORKER_CONCURRENCY: Type.Integer({
    default: 16,
    minimum: 1,
    maximum: 1000,
    description:
      'Executions this process runs at once, all its skills together (a job is only taken from its queue when a slot is free).',
  }),
  SANDBOX_THREADS: Type.Integer({
    default: availableParallelism(),
    minimum: 1,
    maximum: 256,
    description:
      'Sandbox threads for code skills, shared by all of them, each running many executions at once (default: the number of cores).',
  }),
  SANDBOX_THREAD_MEMORY_MB: Type.Integer({
    default: 512,
    minimum: 16,
    description:
      "Memory limit of each sandbox thread: its heap (a skill over it ends its thread's executions), and as much again in buffers outside it (an allocation past that fails).",
  }),
  WORKER_ID: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  ABORT_GRACE_MS: Type.Integer({
    default: 500,
    minimum: 0,
    description: 'After a deadline, how long a skill may clean up before its thread is killed.',
  }),
  MAX_OUTPUT_BYTES: Type.Integer({
    default: 1_048_576,
    minimum: 1024,
    description:
      'The largest output an execution may have, as JSON: a larger one fails the execution with OUTPUT_TOO_LARGE instead of being stored in Redis and served.',
  }),
  MAX_CHUNK_BYTES: Type.Integer({
    default: 65_536,
    minimum: 16,
    description:
      "The largest chunk a skill may stream (ctx.emit; an llm skill's text delta), as JSON: a larger one fails the execution with OUTPUT_TOO_LARGE.",
  }),
  MAX_STREAM_BYTES: Type.Integer({
    default: 1_048_576,
    minimum: 1024,
    description:
      'The most an attempt may stream in all (its chunks as JSON, added up); past it the execution fails with OUTPUT_TOO_LARGE. At least MAX_CHUNK_BYTES.',
  }),
  WORKER_REMOTE: Type.Boolean({
    default: true,
    description:
      'Whether this worker calls the providers of skills registered from elsewhere (api federation), taking their executions from the remote queue with its own.',
  }),
  WORKER_SCALE_TO_ZERO: Type.Boolean({
    default: false,
    description:
      "Whether this worker's pool may scale to zero: its skill versions stay invocable after it stops (their executions wait for the next worker), until an operator forgets them.",
  }),
  WORKER_WEBHOOKS: Type.Boolean({
    default: true,
    description:
      'Whether this worker dispatches and sends webhook deliveries (on a queue of their own, beside the executions).',
  }),
  WEBHOOK_CONCURRENCY: Type.Integer({
    default: 16,
    minimum: 1,
    maximum: 1000,
    description: 'Webhook deliveries this worker sends at once (apart from WORKER_CONCURRENCY).',
  }),
  WEBHOOK_ATTEMPTS: Type.Integer({
    default: 10,
    minimum: 1,
    maximum: 30,
    description: 'Tries of each webhook delivery before it is marked failed.',
  }),
  WEBHOOK_BACKOFF_MS: Type.Integer({
    default: 2000,
    minimum: 1,
    description:
      'Delay before the first retry of a webhook delivery, doubled at each retry after (10 tries: about 17 minutes in all).',
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({
    default: 10_000,
    minimum: 100,
    description: 'Longest one webhook delivery attempt may take (connection to last byte).',
  }),
  OUTBOUND_TIMEOUT_MS: Type.Integer({
    default: 10_000,
    minimum: 100,
    description:
      "Longest one call to a provider may take (connection to last byte); within an attempt's deadline.",
  }),
  SHUTDOWN_GRACE_MS: Type.Integer({
    default: 30_000,
    minimum: 0,
    description:
      'On SIGTERM, how long running executions may take to finish; those still running then go back to their queue for another worker.',
  }),
  JOB_LOCK_MS: Type.Integer({
    default: 30_000,
    minimum: 1000,
    description:
      "How long a job stays locked to its worker without renewal (renewed every half of this): a crashed worker's executions are picked up again after it.",
  }),
  STALLED_CHECK_INTERVAL_MS: Type.Integer({
    default: 30_000,
    minimum: 500,
    description:
      'How often workers look for jobs whose lock has expired (a worker died) and queue them again.',
  }),
  ...LlmProviderConfig,
  LLM_STRUCTURED_OUTPUT: StringEnum(['json_schema', 'json_object', 'none'], {
    default: 'json_schema',
    description: "How answers are held to JSON: the output schema, any JSON object, or the prompt's word.",
  }),
  LLM_MAX_RETRIES: Type.Integer({
    default: 2,
    minimum: 0,
    maximum: 10,
    description: 'Retries of a rate-limited (429) or failed (5xx) LLM call, honouring Retry-After.',
  }),
  LLM_INPUT_USD_PER_MTOK: Type.Optional(
    Type.Number({
      minimum: 0,
      description:
        "Price table: US dollars per million prompt tokens of the worker's models (a skill's llm.json `price` wins); with LLM_OUTPUT_USD_PER_MTOK, executions' usage carries cost_usd.",
    }),
  ),
  LLM_OUTPUT_USD_PER_MTOK: Type.Optional(
    Type.Number({
      minimum: 0,
      description: "Price table: US dollars per million completion tokens of the worker's models.",
    }),
  ),
  PROGRESS_INTERVAL_MS: Type.Integer({
    default: 100,
    minimum: 0,
    description:
      "How often a running skill's progress is written to its record, at most (progress reported in between is coalesced).",
  }),
  SKILL_CACHE_MS: Type.Integer({
    default: 1000,
    minimum: 0,
    description: "How long a composite's worker caches which versions of a called skill exist.",
  }),
  COMPOSITE_SWEEP_INTERVAL_MS: Type.Integer({
    default: 500,
    minimum: 50,
    description: 'How often the worker times out composites whose deadline passed while they waited.',
  }),
  METRICS_PORT: Type.Integer({
    default: 9464,
    minimum: 0,
    maximum: 65535,
    description:
      "Port of the worker's GET /metrics, /healthz and /readyz (0: any free port, logged at start; npm start's worker takes a free one unless this is set).",
  }),
  METRICS_HOST: Type.String({
    default: '127.0.0.1',
    description:
      'Address /metrics, /healthz and /readyz listen on: this machine only by default; 0.0.0.0 for every interface (the image sets it).',
  }),
  REDIS_TIMEOUT_MS: Type.Integer({
    default: 800,
    minimum: 50,
    description:
      'How long each /readyz check, each read of Redis during a /metrics scrape, and each command that asks the replicas to confirm a status before its webhook is sent (with ACK_TIMEOUT_MS added: ACK_REPLICAS) may take.',
  }),
  HEARTBEAT_INTERVAL_MS: Type.Integer({
    default: 5000,
    minimum: 100,
    description: 'How often the worker renews its skills in the catalog (its lease is 3 × this).',
  }),
});
export type WorkerConfig = Static<typeof WorkerConfigSchema> & {
  SKILLS_DIR: string;
  SKILLS_WATCH: boolean;
  WORKER_ID: string;
  redisTarget: RedisTarget;
};

/**
 * Reads the worker's settings once, at start-up; `defaults` are those of the process it runs in
 * (the standalone service, `npm start`, watches its skills: it is how one develops them).
 */
export function loadWorkerConfig(
  env: NodeJS.ProcessEnv,
  defaults: { skillsDir: string; watchSkills?: boolean },
): WorkerConfig {
  const parsed = parseEnv(WorkerConfigSchema, env);
  checkShardSettings(parsed);
  if (parsed.MAX_CHUNK_BYTES > parsed.MAX_STREAM_BYTES) {
    throw new ConfigError(
      `Invalid configuration:\n  MAX_CHUNK_BYTES: ${parsed.MAX_CHUNK_BYTES} is over MAX_STREAM_BYTES (${parsed.MAX_STREAM_BYTES}): a chunk counts against the total`,
    );
  }
  return Object.freeze({
    ...parsed,
    SKILLS_DIR: parsed.SKILLS_DIR ?? defaults.skillsDir,
    SKILLS_WATCH: parsed.SKILLS_WATCH ?? defaults.watchSkills ?? false,
    WORKER_ID: parsed.WORKER_ID ?? `${hostname()}-${process.pid}`,
    redisTarget: redisTargetOf(parsed),
  });
}
