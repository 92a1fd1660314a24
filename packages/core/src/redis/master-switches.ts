import { Redis } from 'ioredis';
import type { RedisNode, RedisTarget } from './redis-target';

/** The channel on which a Sentinel announces a promotion: `name old-ip old-port new-ip new-port`. */
const SWITCH_CHANNEL = '+switch-master';
/** Between attempts to reach a Sentinel again: a Sentinel away misses no promotion it can tell. */
const RECONNECT_MS = 1_000;

/**
 * The promotions of one master group, as each of its Sentinels announces them (`+switch-master`):
 * one subscriber connection per Sentinel, subscribed again whenever it connects again. A promotion
 * reaches a process even when none of its connections closes: one healed from a minority side,
 * still on the old primary (which answers, as master, until the Sentinels demote it 8 to 20 s on).
 * Every Sentinel says it (the leader first, the others once they learn the new configuration), so
 * a process told by a Sentinel that lagged is told again.
 */
export class MasterSwitches {
  private readonly subscribers: Redis[];

  constructor(sentinels: NonNullable<RedisTarget['sentinels']>, switched: (master: RedisNode) => void) {
    this.subscribers = sentinels.nodes.map((node) => {
      const subscriber = new Redis({
        host: node.host,
        port: node.port,
        ...(sentinels.password === undefined ? {} : { password: sentinels.password }),
        retryStrategy: () => RECONNECT_MS,
        maxRetriesPerRequest: null,
        // A Sentinel cut off is noticed by the kernel; it speaks when healed, or this reconnects.
        keepAlive: RECONNECT_MS,
      });
      // A Sentinel away is expected; what matters is a promotion, told by any of them.
      subscriber.on('error', () => {});
      subscriber.on('message', (_channel: string, message: string) => {
        const [name, , , host, port] = message.split(' ');
        if (name === sentinels.name && host && port) switched({ host, port: Number(port) });
      });
      subscriber.subscribe(SWITCH_CHANNEL).catch(() => {});
      return subscriber;
    });
  }

  close(): void {
    for (const subscriber of this.subscribers) subscriber.disconnect();
  }
}
