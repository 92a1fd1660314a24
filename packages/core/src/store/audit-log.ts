import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { execAll } from '../redis/exec-all';
import type { AuditOutcome, AuditRecord } from '../schemas/audit-record';
import type { RedisKeys } from './keys/redis-keys';

/** What is known of an act before it is done: the record but its outcome. */
export type AuditEntry = Omit<
  AuditRecord,
  'audit_id' | 'at' | 'details' | 'outcome' | 'status' | 'error_code'
>;

/** How an act was answered. */
export interface AuditAnswer {
  outcome: Exclude<AuditOutcome, 'unknown'>;
  status: number;
  error_code?: string;
  location?: string;
}

/** A listing's filters (times in epoch ms, both included) and where it goes on from. */
export interface AuditFilter {
  actor?: string;
  action?: string;
  outcome?: AuditOutcome;
  since?: number;
  until?: number;
  /** The audit id the previous page stopped at. */
  after?: string;
}

export interface AuditLogOptions {
  redis: Redis;
  keys: RedisKeys;
  /** How long a record is kept (AUDIT_RETENTION_DAYS). */
  retentionMs: number;
  now?: () => number;
}

/** Ids read from the index at a time while filtering. */
const BATCH = 100;
/** Records one listing reads at most before it answers with what it found and a cursor. */
const SCAN_BOUND = 2000;

/**
 * The audit log: a record per administrative act, written before the act (`begin`) and given its
 * outcome once answered (`settle`), kept `retentionMs`. Listed newest first, filtered as read: the
 * log is small (administrative acts only), so a listing reads at most SCAN_BOUND records and hands
 * back a cursor where it stopped.
 */
export class AuditLog {
  private readonly now: () => number;

  constructor(private readonly options: AuditLogOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Writes an act's record (its outcome `unknown` until settled) and trims what is past the
   * retention; rejects when Redis refuses any part of the write, so the act can be refused.
   */
  async begin(entry: AuditEntry): Promise<string> {
    const { redis, keys, retentionMs } = this.options;
    const at = this.now();
    const auditId = `${padded(at)}-${randomBytes(6).toString('hex')}`;
    const record = { audit_id: auditId, at: new Date(at).toISOString(), ...entry };
    await execAll(
      redis
        .multi()
        .zadd(keys.audit.index(), 0, auditId)
        .hset(keys.audit.record(auditId), 'record', JSON.stringify(record))
        .pexpire(keys.audit.record(auditId), retentionMs)
        .zremrangebylex(keys.audit.index(), '-', `(${padded(at - retentionMs)}`),
    );
    return auditId;
  }

  /** Records how the act was answered, and the details of what was asked (read from its body meanwhile). */
  async settle(auditId: string, answer: AuditAnswer, details: Record<string, unknown>): Promise<void> {
    await this.options.redis.hset(this.options.keys.audit.record(auditId), {
      ...answer,
      details: JSON.stringify(details),
    });
  }

  /** Up to `limit` records that match, newest first, and where to go on from (null once none is left). */
  async list(filter: AuditFilter, limit: number): Promise<{ records: AuditRecord[]; next: string | null }> {
    const { redis, keys } = this.options;
    const min = filter.since === undefined ? '-' : `[${padded(filter.since)}`;
    let max =
      filter.after !== undefined
        ? `(${filter.after}`
        : filter.until === undefined
          ? '+'
          : `(${padded(filter.until + 1)}`;
    const records: AuditRecord[] = [];
    for (let scanned = 0; scanned < SCAN_BOUND; scanned += BATCH) {
      const ids = await redis.zrevrangebylex(keys.audit.index(), max, min, 'LIMIT', 0, BATCH);
      const pipeline = redis.pipeline();
      for (const id of ids) pipeline.hgetall(keys.audit.record(id));
      const hashes = (await execAll(pipeline)) as Record<string, string>[];
      for (const [i, hash] of hashes.entries()) {
        const record = recordOf(hash);
        if (record && matches(record, filter)) records.push(record);
        if (records.length === limit) return { records, next: ids[i] ?? null };
      }
      if (ids.length < BATCH) return { records, next: null };
      max = `(${ids.at(-1)}`;
    }
    return { records, next: max.slice(1) };
  }
}

/** A time in epoch ms as the index's ids start with it, so that their order is the times'. */
function padded(ms: number): string {
  return String(Math.max(0, ms)).padStart(13, '0');
}

/** A stored record with its outcome (`unknown` until settled); undefined for one expired meanwhile. */
function recordOf(hash: Record<string, string>): AuditRecord | undefined {
  if (hash.record === undefined) return undefined;
  const stored = JSON.parse(hash.record) as AuditEntry & Pick<AuditRecord, 'audit_id' | 'at'>;
  return {
    ...stored,
    details: hash.details === undefined ? {} : (JSON.parse(hash.details) as Record<string, unknown>),
    outcome: (hash.outcome as AuditOutcome | undefined) ?? 'unknown',
    ...(hash.status === undefined ? {} : { status: Number(hash.status) }),
    ...(hash.error_code === undefined ? {} : { error_code: hash.error_code }),
    ...(hash.location === undefined ? {} : { location: hash.location }),
  };
}

function matches(record: AuditRecord, filter: AuditFilter): boolean {
  return (
    (filter.actor === undefined || record.actor.caller_id === filter.actor) &&
    (filter.action === undefined || record.action === filter.action) &&
    (filter.outcome === undefined || record.outcome === filter.outcome)
  );
}
