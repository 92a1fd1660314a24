import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import { execAll } from '../redis/exec-all';
import { type RedisScript, redisScript } from '../redis/redis-script';
import type { ApiKeyRecord, CreatedApiKey } from '../schemas/api-key';
import type { Role } from '../schemas/role';
import type { Scope } from '../schemas/scope';
import type { RedisKeys } from '../store/keys/redis-keys';
import CREATE from './create-api-key.lua';
import type { Principal } from './principal';
import REVOKE from './revoke-api-key.lua';

const KEY_FORMAT = /^srk_(?<id>[0-9a-f]{16})_(?<secret>[A-Za-z0-9_-]{43})$/;
const HASH_FIELD = 'secret_sha256';
/** Compared with when no hash is stored, so that an unknown id takes as long as a known one. */
const DUMMY_HASH = randomBytes(32);

/** What a new key grants. */
export interface ApiKeyGrant {
  callerId: string;
  scopes: readonly Scope[];
  /** The skill ids the key may use; all when absent. */
  skills?: readonly string[];
  name?: string;
  /** Absent: the key is a caller's, as before roles existed. */
  role?: Role;
  /** What the caller may spend per UTC day with the key, in US dollars. */
  dailyBudgetUsd?: number;
}

/**
 * API keys `srk_<id>_<secret>`, one HASH per key. Only the SHA-256 of the secret is kept (the
 * secret is 256 random bits, so a fast hash is enough), and no method ever returns it.
 */
/** What verifying a key needs of its record: the stored hash, and whom it speaks for unless revoked. */
interface KeyEntry {
  hash: Buffer | undefined;
  principal: Principal | null;
  /** Epoch ms after which the entry is read from Redis again. */
  expires: number;
}

/** Keys verified recently, at most this many (the oldest go first). */
const CACHE_ENTRIES = 10_000;

export class ApiKeyStore {
  private readonly cache = new Map<string, KeyEntry>();
  /**
   * The reads of records under way (while caching), which the verifications that miss the cache
   * meanwhile wait for: otherwise each expiry of a busy key cost a read per request in flight.
   */
  private readonly reading = new Map<string, Promise<KeyEntry>>();
  private readonly createScript: RedisScript<number>;
  private readonly revokeScript: RedisScript<number>;

  /**
   * `cacheMs`: how long a key's record, once read, is trusted without reading it again (0: read on
   * every verification). A key revoked through this store stops working at once here, and within
   * `cacheMs` everywhere else.
   */
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly cacheMs = 0,
  ) {
    this.createScript = redisScript(redis, 'skillrunCreateApiKey', CREATE);
    this.revokeScript = redisScript(redis, 'skillrunRevokeApiKey', REVOKE);
  }

  /** A new key, returned this once: only its hash is stored. */
  async create(grant: ApiKeyGrant): Promise<CreatedApiKey> {
    const secret = randomBytes(32).toString('base64url');
    const hash = sha256(secret).toString('hex');
    for (;;) {
      const record = newRecord(randomBytes(8).toString('hex'), grant);
      const pairs = Object.entries({ ...toFields(record), [HASH_FIELD]: hash }).flat();
      const created = await this.createScript(
        [
          this.keys.callers.apiKey(record.id),
          this.keys.callers.apiKeysOf(record.caller_id),
          this.keys.callers.apiKeyIds(),
        ],
        [record.id, ...pairs],
      );
      if (created === 1) return { key: `srk_${record.id}_${secret}`, record };
    }
  }

  /** Who a presented key speaks for; null for anything but a known, unrevoked key with its secret. */
  async verify(presented: string): Promise<Principal | null> {
    const parsed = KEY_FORMAT.exec(presented)?.groups;
    // A key still cached is verified without a turn of the event loop (the hot path: POST invoke).
    const entry = parsed?.id ? (this.cached(parsed.id) ?? (await this.entry(parsed.id))) : undefined;
    const matches = timingSafeEqual(sha256(parsed?.secret ?? ''), entry?.hash ?? DUMMY_HASH);
    return matches && entry?.hash !== undefined ? entry.principal : null;
  }

  /** Revokes a key for good; true when it exists (revoking again keeps the first revoked_at). */
  async revoke(id: string): Promise<boolean> {
    const revoked = await this.revokeScript([this.keys.callers.apiKey(id)], [new Date().toISOString()]);
    this.cache.delete(id);
    // A read begun before the revocation is neither shared nor remembered from now on.
    this.reading.delete(id);
    return revoked === 1;
  }

  /** The key's entry as cached, while it is still trusted. */
  private cached(id: string): KeyEntry | undefined {
    const cached = this.cache.get(id);
    return cached && cached.expires > Date.now() ? cached : undefined;
  }

  /** A key's entry read from Redis: one read shared by the verifications that miss the cache meanwhile. */
  private async entry(id: string): Promise<KeyEntry> {
    if (this.cacheMs === 0) return this.read(id);
    const shared = this.reading.get(id);
    if (shared) {
      const entry = await shared;
      // That read began before this request: a key it did not find may have been created since.
      if (entry.hash !== undefined) return entry;
    }
    const read = this.read(id).then((entry) => {
      if (this.reading.get(id) !== read) return entry;
      this.reading.delete(id);
      if (entry.hash !== undefined) this.remember(id, entry);
      return entry;
    });
    this.reading.set(id, read);
    read.catch(() => {
      if (this.reading.get(id) === read) this.reading.delete(id);
    });
    return read;
  }

  private async read(id: string): Promise<KeyEntry> {
    const fields = await this.redis.hgetall(this.keys.callers.apiKey(id));
    const record = toRecord(fields);
    const entry: KeyEntry = {
      hash: storedHash(fields),
      principal:
        record === null || record.revoked_at !== undefined
          ? null
          : {
              callerId: record.caller_id,
              scopes: record.scopes,
              ...(record.skills === undefined ? {} : { skills: record.skills }),
              ...(record.role === undefined ? {} : { role: record.role }),
              method: 'api_key',
              keyId: record.id,
              ...(record.daily_budget_usd === undefined ? {} : { dailyBudgetUsd: record.daily_budget_usd }),
            },
      expires: Date.now() + this.cacheMs,
    };
    return entry;
  }

  private remember(id: string, entry: KeyEntry): void {
    this.cache.delete(id);
    this.cache.set(id, entry);
    if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    return toRecord(await this.redis.hgetall(this.keys.callers.apiKey(id)));
  }

  /** One caller's keys, or every key, oldest first, revoked ones included. */
  async list(callerId?: string): Promise<ApiKeyRecord[]> {
    const ids = await this.redis.smembers(
      callerId === undefined ? this.keys.callers.apiKeyIds() : this.keys.callers.apiKeysOf(callerId),
    );
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.callers.apiKey(id));
    const replies = (await execAll(pipeline)) as Record<string, string>[];
    return replies
      .map(toRecord)
      .filter((record) => record !== null)
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }
}

/** One-shot (`crypto.hash`): every authenticated request hashes its key, and a Hash object per call cost ~40% more. */
function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

function newRecord(id: string, grant: ApiKeyGrant): ApiKeyRecord {
  return {
    id,
    caller_id: grant.callerId,
    scopes: [...grant.scopes],
    ...(grant.skills === undefined ? {} : { skills: [...grant.skills] }),
    ...(grant.name === undefined ? {} : { name: grant.name }),
    ...(grant.role === undefined ? {} : { role: grant.role }),
    ...(grant.dailyBudgetUsd === undefined ? {} : { daily_budget_usd: grant.dailyBudgetUsd }),
    created_at: new Date().toISOString(),
  };
}

function toFields(record: ApiKeyRecord): Record<string, string> {
  return {
    id: record.id,
    caller_id: record.caller_id,
    scopes: JSON.stringify(record.scopes),
    ...(record.skills === undefined ? {} : { skills: JSON.stringify(record.skills) }),
    ...(record.name === undefined ? {} : { name: record.name }),
    ...(record.role === undefined ? {} : { role: record.role }),
    ...(record.daily_budget_usd === undefined ? {} : { daily_budget_usd: String(record.daily_budget_usd) }),
    created_at: record.created_at,
  };
}

function toRecord(fields: Record<string, string>): ApiKeyRecord | null {
  const { id, caller_id, scopes, skills, name, role, daily_budget_usd, created_at, revoked_at } = fields;
  if (id === undefined || caller_id === undefined || scopes === undefined || created_at === undefined) {
    return null;
  }
  return {
    id,
    caller_id,
    scopes: JSON.parse(scopes) as Scope[],
    ...(skills === undefined ? {} : { skills: JSON.parse(skills) as string[] }),
    ...(name === undefined ? {} : { name }),
    ...(role === undefined ? {} : { role: role as Role }),
    ...(daily_budget_usd === undefined ? {} : { daily_budget_usd: Number(daily_budget_usd) }),
    created_at,
    ...(revoked_at === undefined ? {} : { revoked_at }),
  };
}

/** The stored hash as 32 bytes, or undefined when there is none (a corrupt one counts as none). */
function storedHash(fields: Record<string, string>): Buffer | undefined {
  const hex = fields[HASH_FIELD];
  return hex !== undefined && /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}
