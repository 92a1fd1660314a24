import type { ShardMap } from '../shard-map';

/** One notifications stream: its key, and the vshard whose tag it has (none: the prefix's). */
export interface NotificationStream {
  key: string;
  vshard?: number;
}

/** The keys of what webhooks and event streams hear: the notifications streams and who follows them. */
export class NotificationKeys {
  constructor(private readonly shards: ShardMap) {}

  /**
   * STREAM of the changes webhooks are to hear of (execution id and status), appended by the
   * execution store's TRANSITION for records that have a webhook; worker dispatchers read it as a
   * consumer group. One per hash tag, beside the records whose changes it holds (the transition
   * appends in its record's slot): the prefix's for legacy ids, each vshard's for its own.
   */
  stream(executionId = ''): string {
    return `${this.shards.tagOf(executionId)}:notifications`;
  }

  /**
   * Every notifications stream a reader follows, each with its vshard: the prefix's (no vshard:
   * legacy ids, and every id at one shard), then each active vshard's when there are more.
   */
  streams(): NotificationStream[] {
    const { shards } = this;
    const vshards = shards.shards > 1 ? shards.active() : [];
    return [
      { key: `${shards.prefix}:notifications` },
      ...vshards.map((vshard) => ({ key: `${shards.tag(vshard)}:notifications`, vshard })),
    ];
  }

  /**
   * HASH caller → epoch ms until which some gateway keeps an event stream of its executions open
   * (renewed while it does): their changes are notifications meanwhile.
   */
  followedCallers(): string {
    return `${this.shards.prefix}:followed-callers`;
  }

  /** Pub/sub channel on which a gateway announces that the callers with webhooks or followers changed. */
  notifiedCallersChanged(): string {
    return `${this.shards.prefix}:notified-callers-changed`;
  }
}
