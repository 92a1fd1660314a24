import { Type } from '@sinclair/typebox';
import { StringEnum } from '../schemas/json-schema';
import { ConfigError } from './parse-env';

/** `host:port,host:port`. */
const NODE_LIST = '^[^\\s,]+:\\d{1,5}(,[^\\s,]+:\\d{1,5})*$';

/** Settings every process reads; each app composes these into its own config schema. */
export const CommonConfig = {
  REDIS_URL: Type.String({
    default: 'redis://127.0.0.1:6379',
    pattern: '^rediss?://',
    description: 'Redis to use.',
  }),
  REDIS_SENTINELS: Type.Optional(
    Type.String({
      pattern: NODE_LIST,
      description:
        'Redis Sentinels as host:port,host:port: connect to the master they name (REDIS_URL then gives only its user, password, database and TLS).',
    }),
  ),
  REDIS_SENTINEL_NAME: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'The master group the Sentinels watch (required with REDIS_SENTINELS).',
    }),
  ),
  REDIS_SENTINEL_PASSWORD: Type.Optional(
    Type.String({ minLength: 1, description: 'Password of the Sentinels themselves, if they require one.' }),
  ),
  REDIS_CLUSTER_NODES: Type.Optional(
    Type.String({
      pattern: NODE_LIST,
      description:
        'Redis Cluster seed nodes as host:port,host:port (REDIS_URL then gives only user, password and TLS).',
    }),
  ),
  REDIS_LIVENESS_MS: Type.Integer({
    default: 2000,
    minimum: 100,
    maximum: 60_000,
    description:
      'How often each Redis connection is asked PING. One not answered by the next time, or connected and not ready by then, is closed and opened again (through the Sentinels or the cluster, which name the master anew): a Redis cut off by the network is left within twice this. Also how long a queue consumer waits before fetching again after a lost connection.',
  }),
  KEY_PREFIX: Type.String({
    default: '{skillrun}',
    pattern: '^[^:\\s]+$',
    description: 'Prefix of every Redis key (the braces make it a Redis Cluster hash tag).',
  }),
  REDIS_SHARDS: Type.Integer({
    default: 1,
    minimum: 1,
    maximum: 256,
    description:
      'How many Redis Cluster masters new executions are spread over (docs/design/sharding.md); above 1 it needs a braced KEY_PREFIX and a cluster or a single Redis, not Sentinels. Above 1, a gated (concurrency) or debounced skill runs on one shard, its home, chosen from its id; a schedule keeps a shard for its runs; the items of a batch take its shard (a spread batch refuses a gated or debounced item whose home is another); the steps of a composite take its shard. Ids made at 1 keep resolving after a change.',
  }),
  ACK_REPLICAS: Type.Integer({
    default: 0,
    minimum: 0,
    maximum: 16,
    description:
      "How many replicas must hold a launch, a cancel or a task hand-in before a gateway answers it, and a status past accepted before it is told (Redis WAIT): by a gateway's reads, and by a worker's webhooks (one not confirmed is sent later, after WEBHOOK_BACKOFF_MS, without spending an attempt). Set it alike on gateways and workers, to every replica of the master (with Sentinels, every replica they know: a gateway's /readyz fails its replicas check otherwise): a failover then loses no execution answered 202 and undoes no status told; fewer is best effort, as a failover may promote a replica that did not confirm. Not confirmed within ACK_TIMEOUT_MS, a gateway answers 503 (a launch withdrawn). 0: answered and told once the master has it.",
  }),
  ACK_TIMEOUT_MS: Type.Integer({
    default: 500,
    minimum: 1,
    maximum: 60_000,
    description:
      'With ACK_REPLICAS: how long a write, or a status about to be told, waits for the replicas to confirm it before the 503 (or the webhook put off).',
  }),
  EXECUTION_TTL_SECONDS: Type.Integer({
    default: 86_400,
    minimum: 60,
    description:
      'How long an execution record is kept once the execution has ended (until then it lives as long as its job).',
  }),
  RETRY_BACKOFF_MS: Type.Integer({
    default: 1000,
    minimum: 0,
    description: 'Initial delay before retrying a failed attempt; attempt n waits this × 2^(n-1).',
  }),
  PROVIDER_SECRETS_KEY: Type.Optional(
    Type.String({
      minLength: 32,
      description:
        'The key (at least 32 characters, the same on gateways and workers) that encrypts the credentials this service presents to the providers of skills registered from elsewhere; without it none can be set.',
    }),
  ),
  LOG_LEVEL: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  OUTBOUND_ALLOW: Type.Optional(
    Type.String({
      pattern: '^[0-9A-Fa-f:./]+(,[0-9A-Fa-f:./]+)*$',
      description:
        'Address ranges (CIDR, comma-separated) that outbound calls (remote providers, webhooks) may reach although they are not public, e.g. 10.1.0.0/16; loopback, private, link-local and the like are refused otherwise.',
    }),
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        'An OTLP/HTTP collector (e.g. http://jaeger:4318): traces are exported there; none without it.',
    }),
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description: 'The full URL traces are sent to (…/v1/traces), when not the endpoint above.',
    }),
  ),
};

/** The settings the REDIS_SHARDS check reads. */
export interface ShardSettings {
  REDIS_SHARDS: number;
  KEY_PREFIX: string;
  REDIS_SENTINELS?: string | undefined;
}

/**
 * What REDIS_SHARDS needs beyond its own range, checked by every process that reads it: above 1,
 * executions get hash tags of their own derived from KEY_PREFIX's (ShardMap), which therefore must
 * be a whole hash tag; and a cluster (what the spread is for) or one server (which takes any tag:
 * how tests run it), not Sentinels.
 */
export function checkShardSettings(settings: ShardSettings): void {
  if (settings.REDIS_SHARDS === 1) return;
  if (!/^\{[^{}]+\}$/.test(settings.KEY_PREFIX)) {
    throw new ConfigError(
      `REDIS_SHARDS above 1 needs a KEY_PREFIX that is one hash tag, like {skillrun} (got ${JSON.stringify(settings.KEY_PREFIX)})`,
    );
  }
  if (settings.REDIS_SENTINELS !== undefined) {
    throw new ConfigError(
      'REDIS_SHARDS above 1 needs REDIS_CLUSTER_NODES or one Redis (REDIS_URL), not REDIS_SENTINELS',
    );
  }
}
