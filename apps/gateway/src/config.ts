import { type Static, Type } from '@sinclair/typebox';
import {
  AccessPolicy,
  CapabilityType,
  CommonConfig,
  ConfigError,
  checkShardSettings,
  DEFAULT_PORT,
  type DescriptorContext,
  LlmProviderConfig,
  LONGEST_WAIT_SECONDS,
  localBaseUrl,
  parseEnv,
} from '@skillrun/core';
import { type RedisTarget, redisTargetOf } from '@skillrun/core/data';
import express from 'express';
import { QueueDashboardConfig } from './admin/queue-dashboard-config';
import { AgentConfig, allowedOriginsOf } from './agents/agent-config';
import { type Limits, parseLimits } from './limits/limits-config';

export const GatewayConfigSchema = Type.Object({
  ...CommonConfig,
  ...QueueDashboardConfig,
  ...AgentConfig,
  ...LlmProviderConfig,
  PORT: Type.Integer({ default: DEFAULT_PORT, minimum: 0, maximum: 65535, description: 'HTTP port.' }),
  HOST: Type.String({
    default: '127.0.0.1',
    description:
      'Address to listen on: this machine only by default, as development servers do; 0.0.0.0 for every interface (the image sets it).',
  }),
  TRUST_PROXY: Type.Optional(
    Type.String({
      description:
        "Proxies whose X-Forwarded-For names the client (Express' trust proxy: a hop count, or addresses, subnets and loopback/linklocal/uniquelocal, comma-separated).",
    }),
  ),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        'Base URL clients reach this gateway at, used in descriptors, Location headers and the Link header that names the service; the default is where the command line looks unless told.',
    }),
  ),
  ADMIN_API_KEY: Type.Optional(
    Type.String({
      minLength: 24,
      description:
        'The first admin credential (X-API-Key). Without it and without admin keys, the admin API is closed.',
    }),
  ),
  OAUTH_ISSUER: Type.Optional(
    Type.String({ minLength: 1, description: 'Issuer (iss) of accepted Bearer JWTs.' }),
  ),
  OAUTH_AUDIENCE: Type.Optional(
    Type.String({ minLength: 1, description: 'Audience (aud) accepted Bearer JWTs must name.' }),
  ),
  OAUTH_JWKS_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description: "The issuer's JSON Web Key Set (keys cached, refetched on rotation).",
    }),
  ),
  OAUTH_ROLE_CLAIM: Type.String({
    default: 'role',
    pattern: '^[A-Za-z_][A-Za-z0-9_.:/-]{0,199}$',
    description:
      'The Bearer JWT claim that carries the role (viewer, operator or admin; a string, or a list whose strongest known role counts). A token without it acts as its scopes say. Not a registered claim (sub, scope…).',
  }),
  CONSOLE_OAUTH_CLIENT_ID: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "The console's client id at the OAuth 2 authorization server: with it, the console offers signing in there (authorization code with PKCE).",
    }),
  ),
  OAUTH_AUTHORIZATION_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        "The authorization server's authorization endpoint, where the console sends people to sign in (default: the issuer's discovery document's).",
    }),
  ),
  OAUTH_TOKEN_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        "The authorization server's token endpoint, where the gateway exchanges the console's code (default: the issuer's discovery document's).",
    }),
  ),
  CONSOLE_OAUTH_SCOPE: Type.Optional(
    Type.String({
      minLength: 1,
      description: "The scopes the console asks for (space-separated; the server's default without it).",
    }),
  ),
  CUSTOM_AUTH_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        'Authorizer that verifies the credentials of skills whose auth is custom (docs/http-api.md, "custom auth").',
    }),
  ),
  CUSTOM_AUTH_TIMEOUT_MS: Type.Integer({
    default: 2000,
    minimum: 50,
    description: 'How long the custom authorizer may take before the invocation answers 503.',
  }),
  LIMITS: Type.Optional(
    Type.String({
      description:
        'Per-caller rate limits and concurrency quotas, overall and per skill, as JSON (docs/http-api.md, "Limits"); none by default.',
    }),
  ),
  HEADERS_TIMEOUT_MS: Type.Integer({
    default: 10_000,
    minimum: 100,
    description: 'Time a client has to send the request head (slow-loris clients are cut off).',
  }),
  REQUEST_TIMEOUT_MS: Type.Integer({
    default: 30_000,
    minimum: 100,
    description: 'Time a client has to send a whole request.',
  }),
  KEEP_ALIVE_TIMEOUT_MS: Type.Integer({
    default: 72_000,
    minimum: 1000,
    description:
      'How long an idle keep-alive connection stays open; longer than a load balancer keeps its own (60 s on most).',
  }),
  BODY_LIMIT_BYTES: Type.Integer({ default: 1_048_576, minimum: 1024, description: 'Largest request body.' }),
  REDIS_TIMEOUT_MS: Type.Integer({
    default: 800,
    minimum: 50,
    description: 'How long a request waits on Redis before answering 503.',
  }),
  MAX_WAIT_SECONDS: Type.Integer({
    default: 30,
    minimum: 0,
    maximum: LONGEST_WAIT_SECONDS,
    description:
      'Longest a GET status or result waits for a change when the client asks to (Prefer: wait=N or ?wait=N); 0 never waits.',
  }),
  MAX_WAITERS: Type.Integer({
    default: 10_000,
    minimum: 0,
    description: 'Requests one gateway keeps waiting at once; past it they are answered at once.',
  }),
  MAX_STREAMS_PER_CALLER: Type.Integer({
    default: 20,
    minimum: 1,
    description:
      'Event streams (GET events) one caller, or one anonymous address, may keep open on one gateway; past it 429.',
  }),
  STREAM_HEARTBEAT_SECONDS: Type.Integer({
    default: 15,
    minimum: 1,
    maximum: 300,
    description: 'How often a quiet event stream sends a comment, so that proxies keep it open.',
  }),
  FAIR_SHARE_BURST: Type.Integer({
    default: 100,
    minimum: 0,
    description:
      "Invocations of one skill a caller makes per FAIR_SHARE_WINDOW_SECONDS (per gateway) before it is bursting: while it bursts, other callers' invocations go ahead of its queued ones and its excess waits behind them, interleaved with other bursts. 0 turns fair share off.",
  }),
  FAIR_SHARE_WINDOW_SECONDS: Type.Integer({
    default: 60,
    minimum: 1,
    description: 'The window FAIR_SHARE_BURST counts in.',
  }),
  IDEMPOTENCY_TTL_SECONDS: Type.Integer({
    default: 86_400,
    minimum: 60,
    description:
      'How long an Idempotency-Key stays bound to the execution its first invocation started: a repeat within it gets that execution again.',
  }),
  AUDIT_RETENTION_DAYS: Type.Integer({
    default: 90,
    minimum: 1,
    maximum: 3650,
    description:
      'How long the audit log keeps the record of an administrative act (keys, publishing, credentials, pauses, bulk cancels, replays, schedules), in days.',
  }),
  MAX_SCHEDULES_PER_CALLER: Type.Integer({
    default: 100,
    minimum: 1,
    description: 'Schedules one caller may have (POST /schedules past it: 429 SCHEDULE_LIMIT_EXCEEDED).',
  }),
  MAX_DELAY_MS: Type.Integer({
    default: 2_592_000_000,
    minimum: 0,
    // A year: BullMQ keeps a delayed job by its due time × 4096, exact in a double only until 2039.
    maximum: 31_536_000_000,
    description:
      'How far ahead an invocation may ask to start (context.delay_ms or run_at), in ms: 30 days by default (400 beyond).',
  }),
  TASK_LINK_SECRET: Type.Optional(
    Type.String({
      minLength: 32,
      description:
        "The secret one-time task links are signed with (HS256), and MCP's multi-round-trip state that hands a task in (with a key derived from it), the same on every gateway; unset, the gateways share one they make and keep in Redis.",
    }),
  ),
  TASK_LINK_TTL_SECONDS: Type.Integer({
    default: 259_200,
    minimum: 60,
    description:
      "How long a one-time task link works (until it is used), and MCP's multi-round-trip state that hands a task in.",
  }),
  API_KEY_CACHE_MS: Type.Integer({
    default: 1000,
    minimum: 0,
    description:
      'How long a gateway trusts an API key it has read without reading it again; a key revoked elsewhere stops working within this time (at once on the gateway that revoked it).',
  }),
  SKILL_CACHE_MS: Type.Integer({
    default: 1000,
    minimum: 0,
    description: 'How long the gateway caches what the catalog says about a skill.',
  }),
  MAX_JSON_DEPTH: Type.Integer({
    default: 64,
    minimum: 8,
    maximum: 1000,
    description: 'Deepest nesting of objects and arrays a request body may have (400 beyond).',
  }),
  PROVIDER_NAME: Type.String({
    default: 'skillrun',
    description: "provider.name of hosted skills' descriptors, unless their descriptor.json says.",
  }),
  PROVIDER_URL: Type.Optional(
    Type.String({ format: 'uri', description: 'provider.url of hosted skills (default PUBLIC_BASE_URL).' }),
  ),
  PROVIDER_CONTACT: Type.Optional(Type.String({ description: 'provider.contact of hosted skills.' })),
  DEFAULT_SKILL_ACCESS: {
    ...AccessPolicy,
    default: 'public',
    description: 'access of hosted skills whose descriptor.json does not say (public, restricted, private).',
  },
  DEFAULT_SKILL_CAPABILITY_TYPE: {
    ...CapabilityType,
    default: 'api',
    description: 'capability_type of hosted skills whose descriptor.json does not say.',
  },
});
export type GatewayConfig = Static<typeof GatewayConfigSchema> & {
  PUBLIC_BASE_URL: string;
  limits: Limits;
  /** MCP_ALLOWED_ORIGINS, each an origin as browsers send it. */
  mcpAllowedOrigins: string[];
  redisTarget: RedisTarget;
};

/** How this gateway publishes hosted skills' descriptors. */
export function descriptorContext(config: GatewayConfig): DescriptorContext {
  return {
    baseUrl: config.PUBLIC_BASE_URL,
    provider: {
      name: config.PROVIDER_NAME,
      url: config.PROVIDER_URL ?? config.PUBLIC_BASE_URL,
      ...(config.PROVIDER_CONTACT ? { contact: config.PROVIDER_CONTACT } : {}),
    },
    retryBackoffMs: config.RETRY_BACKOFF_MS,
    defaults: {
      access: config.DEFAULT_SKILL_ACCESS,
      capabilityType: config.DEFAULT_SKILL_CAPABILITY_TYPE,
      auth: { type: 'none' },
    },
  };
}

/** TRUST_PROXY as Express takes it: a hop count, true/false, or a list of addresses and subnets. */
export function trustProxyOf(setting: string): boolean | number | string {
  if (/^\d+$/.test(setting)) return Number(setting);
  if (setting === 'true' || setting === 'false') return setting === 'true';
  return setting;
}

function checkedTrustProxy(setting: string): string {
  try {
    express().set('trust proxy', trustProxyOf(setting));
    return setting;
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  TRUST_PROXY: ${(error as Error).message}`);
  }
}

/** The claims a token's other checks read: none of them can carry the role. */
const CLAIMS_TAKEN = ['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti', 'scope', 'scp', 'skills'];

/** Reads the gateway's settings once, at start-up. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv): GatewayConfig {
  const parsed = parseEnv(GatewayConfigSchema, env);
  const oauth = [parsed.OAUTH_ISSUER, parsed.OAUTH_AUDIENCE, parsed.OAUTH_JWKS_URL];
  if (oauth.some((value) => value !== undefined) && !oauth.every((value) => value !== undefined)) {
    throw new ConfigError(
      'OAUTH_ISSUER, OAUTH_AUDIENCE and OAUTH_JWKS_URL go together: set all three or none',
    );
  }
  const endpoints = [parsed.OAUTH_AUTHORIZATION_URL, parsed.OAUTH_TOKEN_URL];
  if (endpoints.some((value) => value !== undefined) && !endpoints.every((value) => value !== undefined)) {
    throw new ConfigError('OAUTH_AUTHORIZATION_URL and OAUTH_TOKEN_URL go together: set both or none');
  }
  if (parsed.CONSOLE_OAUTH_CLIENT_ID !== undefined && parsed.OAUTH_ISSUER === undefined) {
    throw new ConfigError(
      'CONSOLE_OAUTH_CLIENT_ID needs OAUTH_ISSUER (the tokens the console brings must verify, and without OAUTH_AUTHORIZATION_URL the issuer names its endpoints)',
    );
  }
  if (CLAIMS_TAKEN.includes(parsed.OAUTH_ROLE_CLAIM)) {
    throw new ConfigError(
      `OAUTH_ROLE_CLAIM cannot be "${parsed.OAUTH_ROLE_CLAIM}": that claim already means something else (${CLAIMS_TAKEN.join(', ')})`,
    );
  }
  checkShardSettings(parsed);
  return Object.freeze({
    ...parsed,
    limits: parseLimits(parsed.LIMITS),
    mcpAllowedOrigins: allowedOriginsOf(parsed.MCP_ALLOWED_ORIGINS),
    ...(parsed.TRUST_PROXY === undefined ? {} : { TRUST_PROXY: checkedTrustProxy(parsed.TRUST_PROXY) }),
    redisTarget: redisTargetOf(parsed),
    PUBLIC_BASE_URL: (parsed.PUBLIC_BASE_URL ?? localBaseUrl(parsed.PORT)).replace(/\/+$/, ''),
  });
}
