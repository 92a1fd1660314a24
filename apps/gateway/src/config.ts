import { type Static, Type } from '@sinclair/typebox';
import { CommonConfig, parseEnv } from '@skillrun/core';

export const GatewayConfigSchema = Type.Object({
  ...CommonConfig,
  PORT: Type.Integer({ default: 3000, minimum: 0, maximum: 65535, description: 'HTTP port.' }),
  HOST: Type.String({ default: '0.0.0.0', description: 'Interface to listen on.' }),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description: 'Base URL clients reach this gateway at, used in descriptors and Location headers.',
    }),
  ),
  BODY_LIMIT_BYTES: Type.Integer({ default: 1_048_576, minimum: 1024, description: 'Largest request body.' }),
  REDIS_TIMEOUT_MS: Type.Integer({
    default: 800,
    minimum: 50,
    description: 'How long a request waits on Redis before answering 503.',
  }),
  SKILL_CACHE_MS: Type.Integer({
    default: 1000,
    minimum: 0,
    description: 'How long the gateway caches what the catalog says about a skill.',
  }),
  PROVIDER_NAME: Type.String({ default: 'skillrun', description: 'provider.name in published descriptors.' }),
});
export type GatewayConfig = Static<typeof GatewayConfigSchema> & { PUBLIC_BASE_URL: string };

/** Reads the gateway's settings once, at start-up. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv): GatewayConfig {
  const parsed = parseEnv(GatewayConfigSchema, env);
  return Object.freeze({
    ...parsed,
    PUBLIC_BASE_URL: (parsed.PUBLIC_BASE_URL ?? `http://localhost:${parsed.PORT}`).replace(/\/+$/, ''),
  });
}
