import type { WebhookMode } from '@skillrun/core';
import type { FollowedCallers, RedisKeys, WebhookStore } from '@skillrun/core/data';
import type { Redis } from 'ioredis';

/** How often the callers with standing webhooks or followers are read again, whatever was announced. */
const REFRESH_MS = 2000;

export interface NotifiedCallersDeps {
  webhooks: WebhookStore;
  followers: FollowedCallers;
  /** The gateway's connection: announcements are published on it. */
  redis: Redis;
  /** Opens the connection that listens for other gateways' announcements. */
  open: () => Redis;
  keys: RedisKeys;
}

/**
 * Which callers' executions must be heard of as they change (a follower: every change) or end (a
 * standing webhook), kept in memory so that an invocation learns it without a Redis round trip.
 * Read whole when a gateway announces a change of them (on a pub/sub channel), and every two
 * seconds in case an announcement was lost.
 */
export class NotifiedCallers {
  private modes = new Map<string, WebhookMode>();
  private followed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private listener: Redis | undefined;

  constructor(private readonly deps: NotifiedCallersDeps) {}

  async start(): Promise<void> {
    const listener = this.deps.open();
    listener.on('error', () => {});
    listener.on('message', () => void this.refresh());
    this.listener = listener;
    // Not awaited: with Redis away at start the gateway starts all the same (the timer catches up).
    listener.subscribe(this.deps.keys.notifications.notifiedCallersChanged()).catch(() => {});
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.listener?.disconnect();
  }

  /** What must be heard of the caller's new executions: every change, their end, or nothing. */
  modeOf(owner: string | undefined): WebhookMode | undefined {
    if (owner === undefined) return undefined;
    return this.followed.has(owner) ? 'change' : this.modes.get(owner);
  }

  /** This gateway changed a caller's webhooks or followers: every gateway reads them again now. */
  async changed(): Promise<void> {
    await this.refresh();
    // The change itself is stored: other gateways not hearing of it now read it within REFRESH_MS.
    await this.deps.redis.publish(this.deps.keys.notifications.notifiedCallersChanged(), '').catch(() => {});
  }

  private async refresh(): Promise<void> {
    try {
      [this.modes, this.followed] = await Promise.all([
        this.deps.webhooks.callerModes(),
        this.deps.followers.followed(),
      ]);
    } catch {
      // Redis away: keep what was known; invocations fail on their own meanwhile.
    }
  }
}
