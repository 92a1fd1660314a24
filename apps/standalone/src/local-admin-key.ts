import type { Logger, Scope } from '@skillrun/core';
import { ApiKeyStore, createRedis, RedisKeys, RedisLiveness, type RedisTarget } from '@skillrun/core/data';
import type { StandaloneData } from './standalone-data';

/** Whom the local admin key speaks for, and what it may do: everything. */
const LOCAL_ADMIN = {
  callerId: 'local-admin',
  scopes: ['admin', 'skill:invoke', 'skill:read'] satisfies Scope[],
  name: 'npm start: the local admin key',
};

/** The service's Redis, as its settings say. */
export interface LocalRedis {
  target: RedisTarget;
  keyPrefix: string;
  /** REDIS_LIVENESS_MS. */
  livenessMs: number;
}

interface LocalAdminKey {
  /** The key's id (its public part: `srk_<id>_…`), never the key. */
  id: string;
  created: boolean;
}

/**
 * Says where the local admin key is and how to use it (never the key itself: it is a secret, and
 * this is a log). A failure costs the key, not the running service.
 */
export async function announceLocalAdminKey(
  logger: Logger,
  redis: LocalRedis,
  data: StandaloneData,
): Promise<void> {
  try {
    const { id, created } = await localAdminKey(redis, data);
    const file = data.adminKeyFile;
    logger.info(
      { key_id: id, caller_id: LOCAL_ADMIN.callerId, file, created },
      `the local admin key (srk_${id}_…) is in ${file}: sign in to the console with it, or run SKILLRUN_API_KEY="$(cat '${file}')" npx skillrun executions`,
    );
  } catch (error) {
    logger.warn({ err: error, file: data.adminKeyFile }, 'could not make the local admin key');
  }
}

/**
 * The admin key of a service on this machine, so that a fresh console or command line has a
 * credential: the one kept in the data folder while Redis still accepts it, else a new one (a
 * fresh Redis, a revoked key). Redis holds its hash, as of every key; its plain text is only in
 * the data folder's file (0600). Waits for Redis if it is away.
 */
async function localAdminKey(
  { target, keyPrefix, livenessMs }: LocalRedis,
  data: StandaloneData,
): Promise<LocalAdminKey> {
  // Watched like the service's connections (which say when Redis stops answering), so that a master
  // cut off meanwhile is left for the one the Sentinels name next.
  const redis = createRedis(target, {
    role: 'queue',
    liveness: new RedisLiveness({ intervalMs: livenessMs, target }),
  });
  try {
    const store = new ApiKeyStore(redis, new RedisKeys(keyPrefix));
    const kept = await data.readAdminKey();
    const principal = kept === undefined ? null : await store.verify(kept);
    if (kept !== undefined && principal?.scopes.includes('admin')) {
      return { id: keyIdOf(kept), created: false };
    }
    const { key, record } = await store.create(LOCAL_ADMIN);
    await data.writeAdminKey(key);
    return { id: record.id, created: true };
  } finally {
    redis.disconnect();
  }
}

/** `srk_<id>_<secret>`: the id, the part that may be shown. */
function keyIdOf(key: string): string {
  return /^srk_([0-9a-f]+)_/.exec(key)?.[1] ?? '';
}
