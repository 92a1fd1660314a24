import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Host } from '../local-network';
import { REDIS_PORT, SENTINEL_PORT, startRedisOn, startSentinelOn } from '../redis-on-host';
import { poll } from './poll';

/** How long the Sentinels may take to agree and promote once the master is gone. */
const PROMOTION_TIMEOUT_MS = 30_000;
/**
 * How long a Redis may take to be a counted replica again: the Sentinels turn an old master back
 * into a replica only once it has answered as master for 8 s, then each of them reads its role on
 * its next INFO (every 10 s): tens of seconds on a loaded machine. A harness's wait, not the
 * service's bound.
 */
const REPLICA_TIMEOUT_MS = 60_000;

/**
 * A Redis master group: Redis on three hosts (the first the master at the start, the others its
 * replicas) and a Sentinel on each of three (quorum 2). `redisHosts` and `sentinelHosts` share
 * their first two; the third Sentinel's host has no Redis, and no fault of the harness touches it:
 * it is the one the test asks who the master is. Two replicas, so that after a failover the new
 * master has one at once (the Sentinels point the other at it), as ACK_REPLICAS=1 needs to serve.
 */
export class RedisGroup {
  private readonly watcher: Redis;

  private constructor(
    readonly name: string,
    readonly redisHosts: readonly [Host, Host, Host],
    readonly sentinelHosts: readonly [Host, Host, Host],
    private readonly dir: string,
  ) {
    this.watcher = new Redis(SENTINEL_PORT, sentinelHosts[2].address, { lazyConnect: false });
  }

  static async start(
    name: string,
    redisHosts: readonly [Host, Host, Host],
    sentinelHosts: readonly [Host, Host, Host],
    dir: string,
  ): Promise<RedisGroup> {
    const [primary, ...replicas] = redisHosts;
    await startRedisOn(primary, join(dir, 'redis-0'));
    for (const [index, replica] of replicas.entries())
      await startRedisOn(replica, join(dir, `redis-${index + 1}`), primary);
    const settings = { name, master: primary, quorum: 2, downAfterMs: 1000 };
    for (const [index, host] of sentinelHosts.entries())
      await startSentinelOn(host, join(dir, `sentinel-${index}`), settings);
    const group = new RedisGroup(name, redisHosts, sentinelHosts, dir);
    for (const replica of replicas) await group.waitForReplica(replica);
    return group;
  }

  /** Every host of the group. */
  get hosts(): Host[] {
    return [...new Set([...this.redisHosts, ...this.sentinelHosts])];
  }

  /** REDIS_SENTINELS for the service. */
  get sentinels(): string {
    return this.sentinelHosts.map((host) => `${host.address}:${SENTINEL_PORT}`).join(',');
  }

  /** The host whose Redis the Sentinels name master now. */
  async master(): Promise<Host> {
    const [address] = (await this.watcher.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name)) as string[];
    const host = this.redisHosts.find((candidate) => candidate.address === address);
    if (!host) throw new Error(`the Sentinels name ${address} master, no host of the group`);
    return host;
  }

  /** The Redis hosts other than `host`. */
  others(host: Host): Host[] {
    return this.redisHosts.filter((candidate) => candidate !== host);
  }

  /** Resolves when the Sentinels promote a replica (+switch-master), started before `fault` runs. */
  async promotionAfter(fault: () => Promise<void>): Promise<number> {
    const subscriber = this.watcher.duplicate();
    try {
      const switched = new Promise<number>((resolve) =>
        subscriber.on('message', (channel: string) => {
          if (channel === '+switch-master') resolve(Date.now());
        }),
      );
      await subscriber.subscribe('+switch-master');
      await fault();
      return await Promise.race([
        switched,
        new Promise<number>((_, reject) =>
          setTimeout(
            () => reject(new Error(`no promotion within ${PROMOTION_TIMEOUT_MS} ms`)),
            PROMOTION_TIMEOUT_MS,
          ),
        ),
      ]);
    } finally {
      subscriber.disconnect();
    }
  }

  /** SIGKILLs the Redis (not the Sentinel) on `host`. */
  async kill(host: Host): Promise<void> {
    for (const pid of await host.namespace.pids()) {
      const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (command.includes(`:${REDIS_PORT}`)) process.kill(pid, 'SIGKILL');
    }
  }

  /** Starts Redis on `host` again (files gone), a replica of the master, and waits until the Sentinels count it. */
  async restart(host: Host): Promise<void> {
    const master = await this.master();
    await startRedisOn(host, join(this.dir, `redis-${this.redisHosts.indexOf(host)}`), master);
    await this.waitForReplica(host);
  }

  /** Until `host`'s Redis is in sync with the master and every Sentinel counts it a healthy replica. */
  async waitForReplica(host: Host): Promise<void> {
    const asked = new Redis(REDIS_PORT, host.address, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await poll(
        async () => (await asked.info('replication')).includes('master_link_status:up'),
        REPLICA_TIMEOUT_MS,
      );
    } finally {
      asked.disconnect();
    }
    for (const sentinelHost of this.sentinelHosts) {
      const sentinel = new Redis(SENTINEL_PORT, sentinelHost.address, {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
      });
      try {
        await poll(async () => {
          const sentinels = (await sentinel.call('SENTINEL', 'SENTINELS', this.name)) as unknown[];
          const replicas = (await sentinel.call('SENTINEL', 'REPLICAS', this.name)) as string[][];
          return (
            sentinels.length === 2 &&
            replicas.some((fields) => {
              const flags = fields[fields.indexOf('flags') + 1] ?? '';
              return fields.includes(host.address) && flags === 'slave';
            })
          );
        }, REPLICA_TIMEOUT_MS);
      } finally {
        sentinel.disconnect();
      }
    }
  }

  close(): void {
    this.watcher.disconnect();
  }
}
