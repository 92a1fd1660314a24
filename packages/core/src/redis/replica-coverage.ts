import { Redis } from 'ioredis';
import type { RedisTarget } from './redis-target';

/** What the Sentinels' view of the group says of ACK_REPLICAS's promise. */
export interface Coverage {
  /** `ok`: a confirmed write is on every replica they may promote; `failed`: it may not be; `unknown`: no Sentinel answered. */
  status: 'ok' | 'failed' | 'unknown';
  detail: string;
}

export interface ReplicaCoverageOptions {
  sentinels: NonNullable<RedisTarget['sentinels']>;
  /** ACK_REPLICAS: how many replicas a write is confirmed on (Redis WAIT), above 0. */
  replicas: number;
  /** How long each Sentinel is given to answer. */
  timeoutMs: number;
}

/**
 * Whether ACK_REPLICAS makes a confirmed write one that every failover keeps, as the Sentinels see
 * the master group. WAIT counts replicas, not which ones; the Sentinels promote the best replica they
 * can reach at that moment (replication offset, among those whose last answers are recent), which
 * need not be one that confirmed: a replica cut off a moment before the master, healed as it went,
 * may be the only one a Sentinel can vouch for (issue 43: a 202 lost that way with ACK_REPLICAS=1
 * and two replicas). So the promise holds only when a write is on every replica that may be
 * promoted; and since WAIT may count one that may not (`replica-priority 0`), that is when
 * ACK_REPLICAS is at least the number of replicas the Sentinels know, as soon as one of them may be
 * promoted. A replica gone for good counts until the Sentinels forget it (SENTINEL RESET): it may
 * come back, and be promoted.
 */
export class ReplicaCoverage {
  constructor(private readonly options: ReplicaCoverageOptions) {}

  /**
   * Asks every Sentinel at once and judges by the first answer (one away, cut off with a master,
   * must not hold the verdict up: readiness waits for it). Never rejects.
   */
  async check(): Promise<Coverage> {
    const asked = this.options.sentinels.nodes.map(async (node) => {
      const replicas = await this.replicasSeenBy(node.host, node.port);
      if (!replicas) throw new Error('no answer');
      return replicas;
    });
    try {
      return this.judge(await Promise.any(asked));
    } catch {
      return { status: 'unknown', detail: 'no Sentinel answered SENTINEL REPLICAS' };
    }
  }

  private judge(replicas: Map<string, string>[]): Coverage {
    const required = this.options.replicas;
    const known = replicas.length;
    const promotable = replicas.filter((fields) => fields.get('slave-priority') !== '0').length;
    const what = `ACK_REPLICAS=${required}; the Sentinels know ${known} replica${known === 1 ? '' : 's'}, ${promotable} of which they may promote`;
    if (known < required) {
      return { status: 'failed', detail: `${what}: no write can be confirmed on ${required}` };
    }
    if (promotable > 0 && required < known) {
      return {
        status: 'failed',
        detail: `${what}: a failover may promote one that did not confirm a 202's launch; set ACK_REPLICAS=${known}`,
      };
    }
    return { status: 'ok', detail: `${what}: a confirmed write is on every one` };
  }

  /** SENTINEL REPLICAS of the group, each replica's fields; undefined when this Sentinel does not answer. */
  private async replicasSeenBy(host: string, port: number): Promise<Map<string, string>[] | undefined> {
    const { sentinels, timeoutMs } = this.options;
    const sentinel = new Redis({
      host,
      port,
      ...(sentinels.password === undefined ? {} : { password: sentinels.password }),
      lazyConnect: true,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    sentinel.on('error', () => {});
    try {
      const reply = (await sentinel.call('SENTINEL', 'REPLICAS', sentinels.name)) as string[][];
      return reply.map((flat) => {
        const fields = new Map<string, string>();
        for (let index = 0; index + 1 < flat.length; index += 2)
          fields.set(String(flat[index]), String(flat[index + 1]));
        return fields;
      });
    } catch {
      return undefined;
    } finally {
      sentinel.disconnect();
    }
  }
}
