import { randomUUID } from 'node:crypto';
import { type Redis, ReplyError } from 'ioredis';
import { SkillError } from '../errors/skill-error';
import { type RedisScript, redisScript } from '../redis/redis-script';
import WRITE_PROBE from './readiness-probe.lua';
import { TimeoutError, withTimeout } from './with-timeout';

export type ReadinessCheckName = 'redis' | 'queue' | 'eviction_policy';

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
  /** The queues' key prefix: the write probe goes under it, in the queues' hash slot on a cluster. */
  keyPrefix: string;
  /** How long each check may take. */
  timeoutMs: number;
}

type Probe = Omit<CheckOutcome, 'check'>;

/**
 * Whether a process can take work: Redis answers, a queue write goes through (not a read-only
 * replica, not out of memory, scripts allowed), and Redis will not evict queued jobs
 * (`maxmemory-policy noeviction`). Each check is bounded by `timeoutMs`; they run together.
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
    const token = randomUUID();
    const key = `${this.options.keyPrefix}:readiness-probe`;
    const read = await this.writeProbe([key], [token]);
    return read === token
      ? { status: 'ok', detail: 'a scripted write under the key prefix round-trips' }
      : { status: 'failed', detail: 'a scripted write under the key prefix did not read back' };
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
