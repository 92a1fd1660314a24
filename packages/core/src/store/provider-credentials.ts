import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './keys/redis-keys';

/** Who we are at the provider: the caller id its credentials belong to there (its caller.id). */
const CallerId = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 256,
    description:
      "The provider's caller id for these credentials, sent as caller.id (else the invoking caller's id).",
  }),
);

/** What a provider's auth needs of us: its api_key, or an OAuth 2 client's id and secret. */
export const ProviderCredentials = Type.Union([
  Type.Object(
    { api_key: Type.String({ minLength: 1, maxLength: 4096 }), caller_id: CallerId },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      client_id: Type.String({ minLength: 1, maxLength: 1024 }),
      client_secret: Type.String({ minLength: 1, maxLength: 4096 }),
      caller_id: CallerId,
    },
    { additionalProperties: false },
  ),
]);
export type ProviderCredentials = Static<typeof ProviderCredentials>;

/**
 * The credentials this service presents to the providers of skills registered from elsewhere, one
 * set per skill id, set by an admin and never shown again. They must be given back to the provider
 * as they are, so they are encrypted (AES-256-GCM, a fresh nonce each time, the skill id bound as
 * associated data so a value cannot be moved to another skill) with a key derived from
 * PROVIDER_SECRETS_KEY, which gateways (to store) and workers (to use) share and Redis never sees.
 */
export class ProviderCredentialsStore {
  private readonly key: Buffer;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    secret: string,
  ) {
    this.key = createHash('sha256').update(secret).digest();
  }

  async set(skillId: string, credentials: ProviderCredentials): Promise<void> {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce).setAAD(Buffer.from(skillId));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(credentials)), cipher.final()]);
    const value = Buffer.concat([nonce, cipher.getAuthTag(), sealed]).toString('base64');
    await this.redis.set(this.keys.registry.providerCredentials(skillId), value);
  }

  async remove(skillId: string): Promise<boolean> {
    return (await this.redis.del(this.keys.registry.providerCredentials(skillId))) === 1;
  }

  /** The credentials for the skill's provider; undefined when none are set (or they cannot be opened). */
  async get(skillId: string): Promise<ProviderCredentials | undefined> {
    const value = await this.redis.get(this.keys.registry.providerCredentials(skillId));
    if (value === null) return undefined;
    try {
      const raw = Buffer.from(value, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12))
        .setAAD(Buffer.from(skillId))
        .setAuthTag(raw.subarray(12, 28));
      const opened = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
      return JSON.parse(opened.toString('utf8')) as ProviderCredentials;
    } catch {
      // Sealed with another PROVIDER_SECRETS_KEY, or altered: as good as none.
      return undefined;
    }
  }
}
