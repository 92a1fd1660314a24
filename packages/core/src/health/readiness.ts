import { randomUUID } from 'node:crypto';
import { type Redis, ReplyError } from 'ioredis';
import { SkillError } from '../errors/skill-error';
import { type RedisScript, redisScript } from '../redis/redis-script';
import type { ReplicaCoverage } from '../redis/replica-coverage';
import WRITE_PROBE from './readiness-probe.lua';
import { TimeoutError, withTimeout } from './with-timeout';

export type ReadinessCheckName = 'redis' | 'queue' | 'eviction_policy' | 'replicas';

/** `unknown`: the check could not be made (CONFIG disabled on a managed Redis); it does not block readiness. */
export type CheckStatus = 'ok' | 'unknown' | 'failed';

export interface CheckOutcome {
  check: ReadinessCheckName;
  status: CheckStatus;
  detail: string;
}

export interface Readiness {
  ready: boolean;
  checks: CheckOutcome[];
}

export interface ReadinessOptions {
  redis: Redis;
  /**
   * The hash tags the service's keys are under (ShardMap.tags: KEY_PREFIX, and above one shard each
   * active vshard's): a write probe goes under each, in each one's slot on a cluster, so that every
   * master holding executions is asked.
   */
  tags: readonly string[];
  /** How long each check may take. */
  timeoutMs: number;
  /**
   * With ACK_REPLICAS and Sentinels: whether a confirmed write is on every replica the Sentinels may
   * promote. Checked like the eviction policy: a setting under which an acknowledged execution may
   * be lost is not ready.
   */
  coverage?: ReplicaCoverage;
}

type Probe = Omit<CheckOutcome, 'check'>;

/**
 * Whether a process can take work: Redis answers, a queue write goes through under every hash tag
 * in use (not a read-only replica, not out of memory, scripts allowed; on a cluster, every master
 * holding the service's keys), and Redis will not evict queued jobs (`maxmemory-policy
 * noeviction`). Each check is bounded by `timeoutMs`; they run together.
 */
export class ReadinessCheck {
  private readonly writeProbe: RedisScript<string | null>;

  constructor(private readonly options: ReadinessOptions) {
    this.writeProbe = redisScript(options.redis, 'skillrunReadinessProbe', WRITE_PROBE);
  }

  async run(): Promise<Readiness> {
    const checks = await Promise.all([
      this.check('redis', () => this.ping()),
      this.check('queue', () => this.write()),
      this.check('eviction_policy', () => this.evictionPolicy()),
      ...(this.options.coverage ? [this.check('replicas', () => this.replicas())] : []),
    ]);
    return { ready: checks.every((outcome) => outcome.status !== 'failed'), checks };
  }

  private async check(check: ReadinessCheckName, probe: () => Promise<Probe>): Promise<CheckOutcome> {
    try {
      return { check, ...(await withTimeout(probe(), this.options.timeoutMs)) };
    } catch (error) {
      return { check, status: 'failed', detail: failureOf(error) };
    }
  }

  private async ping(): Promise<Probe> {
    await this.options.redis.ping();
    return { status: 'ok', detail: 'Redis answers PING' };
  }

  private async write(): Promise<Probe> {
    const { tags } = this.options;
    const failed: string[] = [];
    let error: unknown;
    await Promise.all(
      tags.map(async (tag) => {
        const token = randomUUID();
        try {
          if ((await this.writeProbe([`${tag}:readiness-probe`], [token])) !== token) failed.push(tag);
        } catch (thrown) {
          failed.push(tag);
          error = thrown;
        }
      }),
    );
    const where = tags.length === 1 ? 'under the key prefix' : `under each of ${tags.length} hash tags`;
    if (failed.length === 0) return { status: 'ok', detail: `a scripted write ${where} round-trips` };
    // One tag alone: its failure is the check's (Redis away, read-only, out of memory).
    if (tags.length === 1 && error !== undefined) throw error;
    return {
      status: 'failed',
      detail: `a scripted write did not go through under ${failed.sort().join(', ')}${error === undefined ? '' : ` (${failureOf(error)})`}`,
    };
  }

  private async replicas(): Promise<Probe> {
    const coverage = await this.options.coverage?.check();
    return coverage ?? { status: 'unknown', detail: 'not checked' };
  }

  private async evictionPolicy(): Promise<Probe> {
    let reply: unknown;
    try {
      reply = await this.options.redis.config('GET', 'maxmemory-policy');
    } catch (error) {
      if (!(error instanceof ReplyError)) throw error;
      return {
        status: 'unknown',
        detail: 'CONFIG is not available (a managed Redis?): make sure maxmemory-policy is noeviction',
      };
    }
    const policy = Array.isArray(reply) ? reply[1] : undefined;
    if (policy === 'noeviction') return { status: 'ok', detail: 'maxmemory-policy is noeviction' };
    if (typeof policy !== 'string') {
      return { status: 'unknown', detail: 'Redis did not say its maxmemory-policy' };
    }
    return {
      status: 'failed',
      detail: `maxmemory-policy is ${policy}: Redis may evict queued jobs; a queue needs noeviction`,
    };
  }
}

/** What went wrong, without addresses or credentials: Redis's own refusal is kept, it helps. */
function failureOf(error: unknown): string {
  if (error instanceof TimeoutError) return `Redis gave ${error.message}`;
  if (error instanceof ReplyError) return `Redis refused: ${String((error as Error).message).slice(0, 200)}`;
  return 'cannot reach Redis';
}

/** The 503 a process answers when it is not ready: the failing checks named in the message and details. */
export function notReadyError({ checks }: Readiness): SkillError {
  const failed = checks.filter((outcome) => outcome.status === 'failed');
  return new SkillError(
    'SERVICE_UNAVAILABLE',
    `Not ready: ${failed.map((outcome) => `${outcome.check} (${outcome.detail})`).join('; ')}`,
    { details: { checks } },
  );
}
