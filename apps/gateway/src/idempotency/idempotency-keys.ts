import { randomUUID } from 'node:crypto';
import { type Execution, SkillError } from '@skillrun/core';
import { contentDigest, type RedisKeys, type RedisScript, redisScript } from '@skillrun/core/data';
import type { Redis } from 'ioredis';
import SETTLE from './settle-idempotency-key.lua';

/**
 * What a key is bound to in Redis: while the first request is being accepted, its claim (a token
 * only that request knows); afterwards, the execution it started, as its 202 showed it.
 */
type Binding = { fingerprint: string } & ({ claim: string } | { execution: Execution });

/** The first request with this key: it goes on, and settles the claim whatever happens. */
export interface Claim {
  /** Binds the key to the execution the request started, for the retention period. */
  accept(execution: Execution): Promise<void>;
  /** Frees the key: the request was refused or failed, so nothing was started under it. */
  release(): Promise<void>;
}

export type ClaimOutcome = { claim: Claim } | { replay: Execution };

export interface IdempotencyKeysOptions {
  /** How long a key stays bound to its execution (IDEMPOTENCY_TTL_SECONDS). */
  ttlSeconds: number;
  /** How long a claim may stay pending before it lapses (a gateway that died while accepting). */
  claimMs?: number;
  /** How long a repeat waits for the first request to be accepted or refused before a 409. */
  waitMs?: number;
}

const POLL_MS = 10;

/**
 * Idempotency-Key (the IETF httpapi draft): the first invocation with a key claims it in Redis
 * (SET NX, so one request wins across every gateway), and once it is accepted binds the key to its
 * execution. A repeat with the same request gets that execution again; one with a different request
 * is refused (422); one arriving while the first is still being accepted waits for it. Keys belong
 * to a caller: the same key from another caller is another key.
 */
export class IdempotencyKeys {
  private readonly settleScript: RedisScript<number>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly options: IdempotencyKeysOptions,
  ) {
    this.settleScript = redisScript(redis, 'skillrunSettleIdempotencyKey', SETTLE);
  }

  /**
   * Claims `key` for `caller`'s request, or answers the execution an identical earlier request
   * started. Throws IDEMPOTENCY_KEY_REUSED for a different request, IDEMPOTENCY_KEY_IN_USE when the
   * first one is still being accepted after the wait.
   */
  async claim(caller: string, key: string, request: unknown): Promise<ClaimOutcome> {
    const redisKey = this.keys.idempotencyKey(contentDigest([caller, key]));
    const fingerprint = contentDigest(request);
    const token = randomUUID();
    const pending = JSON.stringify({ fingerprint, claim: token } satisfies Binding);
    const { claimMs = 30_000, waitMs = 5_000 } = this.options;
    const deadline = Date.now() + waitMs;
    for (;;) {
      const previous = (await this.redis.call('SET', redisKey, pending, 'PX', claimMs, 'NX', 'GET')) as
        | string
        | null;
      if (previous === null) return { claim: this.claimOf(redisKey, pending, fingerprint) };
      const binding = JSON.parse(previous) as Binding;
      if (binding.fingerprint !== fingerprint) {
        throw new SkillError(
          'IDEMPOTENCY_KEY_REUSED',
          'This Idempotency-Key was used with a different request (skill, version, body or caller)',
        );
      }
      if ('execution' in binding) return { replay: binding.execution };
      if (Date.now() >= deadline) {
        throw new SkillError(
          'IDEMPOTENCY_KEY_IN_USE',
          'A request with this Idempotency-Key is still being accepted',
          { details: { retry_after_seconds: 1 } },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  private claimOf(redisKey: string, pending: string, fingerprint: string): Claim {
    const settle = (value: string) =>
      this.settleScript([redisKey], [pending, value, this.options.ttlSeconds * 1000]);
    return {
      accept: async (execution) => {
        await settle(JSON.stringify({ fingerprint, execution } satisfies Binding));
      },
      release: async () => {
        await settle('');
      },
    };
  }
}
