import type { WebhookMode, WebhookStore } from '@skillrun/core';

/** How often the callers with standing webhooks are read again (what other gateways changed). */
const REFRESH_MS = 2000;

/**
 * Which callers have standing webhooks, kept in memory so that an invocation learns it without a
 * Redis round trip: read whole every two seconds, and updated at once when this gateway changes
 * one. A webhook made through another gateway applies to this one's invocations within that time.
 */
export class StandingWebhooks {
  private modes = new Map<string, WebhookMode>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly store: WebhookStore) {}

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** What the caller's standing webhooks want to hear of, if it has any. */
  modeOf(owner: string | undefined): WebhookMode | undefined {
    return owner === undefined ? undefined : this.modes.get(owner);
  }

  /** This gateway changed the caller's webhooks: read again now rather than in a while. */
  async changed(): Promise<void> {
    await this.refresh();
  }

  private async refresh(): Promise<void> {
    try {
      this.modes = await this.store.callerModes();
    } catch {
      // Redis away: keep what was known; invocations fail on their own meanwhile.
    }
  }
}
