import { ShardMap } from './shard-map';

/** One notifications stream: its key, and the vshard whose tag it has (none: the prefix's). */
export interface NotificationStream {
  key: string;
  vshard?: number;
}

/**
 * Every Redis key the service owns (BullMQ owns its own under the same prefix). An execution's own
 * keys (record, outcome, chunks, its job and queue) start with its id's hash tag (ShardMap.tagOf:
 * the prefix, for every id but a sharded one); every other key with the prefix.
 */
export class RedisKeys {
  readonly shards: ShardMap;

  /**
   * `shards`: REDIS_SHARDS, how many vshards take new executions (ShardMap); key names do not depend
   * on it, but for a skill's flow control and debounce, on its home (`flow`).
   */
  constructor(
    readonly prefix: string,
    shards = 1,
  ) {
    this.shards = new ShardMap(prefix, shards);
  }

  /** What an execution's own keys and its BullMQ queue's start with. */
  tagOf(executionId: string): string {
    return this.shards.tagOf(executionId);
  }

  execution(executionId: string): string {
    return `${this.tagOf(executionId)}:exec:${executionId}`;
  }

  /**
   * STRING holding an ended execution's output or error when it is too long for the record's
   * compact encoding; it expires with the record.
   */
  outcome(executionId: string): string {
    return `${this.tagOf(executionId)}:exec:${executionId}:outcome`;
  }

  /**
   * STREAM of an execution's streamed output (ctx.emit), entry ids `<seq>-0`; it expires with the
   * record (execution-chunks.ts).
   */
  chunks(executionId: string): string {
    return `${this.tagOf(executionId)}:exec:${executionId}:chunks`;
  }

  /**
   * Pub/sub channel of one gateway's watcher (its inbox): every change of an execution record that
   * names the watcher in `watched` is announced there (the message starts with the execution's id),
   * so that the gateway answers a waiting request the moment the execution changes. One channel per
   * gateway, subscribed once, rather than one per execution: a wait costs no SUBSCRIBE.
   */
  watcherInbox(watcherId: string): string {
    return `${this.watcherInboxes()}${watcherId}`;
  }

  /** What every watcher's inbox channel starts with (the store's script appends the watcher's id). */
  watcherInboxes(): string {
    return `${this.prefix}:watcher:`;
  }

  /**
   * HASH of one batch (POST /batches): its caller, its items' count and its executions' ids. Kept
   * EXECUTION_TTL_SECONDS past its creation and past each end of one of its executions (transition.lua).
   * On its id's tag, as an execution's keys are: a sharded batch's items take its vshard.
   */
  batch(batchId: string): string {
    return `${this.batches(batchId)}${batchId}`;
  }

  /**
   * What the key of a batch on the tag of `id` (a batch's, or one of its executions') starts with:
   * transition.lua appends the batch's id to the ending execution's.
   */
  batches(id: string): string {
    return `${this.tagOf(id)}:batch:`;
  }

  /**
   * LIST of the ids of the executions created in one hour (epoch hours), everyone's or one
   * authenticated caller's, on one tag: the prefix, or (REDIS_SHARDS > 1) the vshard's of the
   * executions it names (execution-index.ts).
   */
  executionsInHour(hour: number, owner?: string, tag: string = this.prefix): string {
    return owner === undefined ? `${tag}:executions:${hour}` : `${tag}:executions:${hour}:by:${owner}`;
  }

  /**
   * SORTED SET of the tasks waiting for someone (scored by when they opened): every skill's, or one
   * skill's, on one tag (the prefix, or a vshard's: a task is listed on its execution's tag, so that
   * opening and ending it stay in its record's slot). A task leaves them when its execution ends.
   */
  openTasks(skillId: string | undefined, tag: string = this.prefix): string {
    return skillId === undefined ? `${tag}:tasks:open` : `${tag}:tasks:open:${skillId}`;
  }

  /** STRING: the encrypted credentials for the provider of a skill registered from elsewhere. */
  providerCredentials(skillId: string): string {
    return `${this.prefix}:provider-credentials:${skillId}`;
  }

  /** STRING: the secret task links are signed with when TASK_LINK_SECRET is not set. */
  taskLinkSecret(): string {
    return `${this.prefix}:task-link-secret`;
  }

  /**
   * Pub/sub channel on which a gateway announces each canceled execution (the message is its id):
   * every worker hears it, and the one running the execution aborts it.
   */
  canceled(): string {
    return `${this.prefix}:canceled`;
  }

  /**
   * STRING binding one caller's Idempotency-Key (named by a digest of both) to the invocation it
   * first came with: a pending claim, then the execution it started.
   */
  idempotencyKey(digest: string): string {
    return `${this.prefix}:idem:${digest}`;
  }

  /**
   * BullMQ's HASH of an execution's job (BullMQ's own key layout: prefix, queue name, job id), on
   * the execution's tag as its queue is (QueueRegistry).
   */
  job(queueName: string, executionId: string): string {
    return `${this.tagOf(executionId)}:${queueName}:${executionId}`;
  }

  /** ZSET (all scores 0) of every skill id in the registry, read in lexical order for pagination. */
  skillIds(): string {
    return `${this.prefix}:registry:ids`;
  }

  /** HASH version → JSON RegistryEntry: every version of a skill ever published. */
  skillVersions(skillId: string): string {
    return `${this.prefix}:registry:skill:${skillId}`;
  }

  /** HASH version → JSON Deprecation. */
  deprecations(skillId: string): string {
    return `${this.prefix}:registry:deprecated:${skillId}`;
  }

  /**
   * HASH `id@version` → id of the worker that last marked it: the hosted versions of scale-to-zero
   * pools, kept invocable while no worker holds a lease on them.
   */
  dormantVersions(): string {
    return `${this.prefix}:registry:dormant`;
  }

  /** HASH skill id → JSON SkillPause: the skills an operator paused (their queues are held). */
  pausedSkills(): string {
    return `${this.prefix}:registry:paused`;
  }

  /** ZSET worker id → lease expiry (ms since epoch) of the workers hosting one version of a skill. */
  skillHosts(skillId: string, version: string): string {
    return `${this.prefix}:skill-hosts:${skillId}@${version}`;
  }

  /** ZSET worker id → lease expiry of every worker process. */
  workers(): string {
    return `${this.prefix}:workers`;
  }

  /** ZSET execution id → deadline (epoch ms) of the composites waiting for a step. */
  waitingComposites(): string {
    return `${this.prefix}:composites:waiting`;
  }

  /** HASH of one API key: its record's fields and the SHA-256 of its secret, never the key itself. */
  apiKey(id: string): string {
    return `${this.prefix}:api-key:${id}`;
  }

  /** SET of the ids of one caller's API keys, revoked ones included. */
  apiKeysOf(callerId: string): string {
    return `${this.prefix}:api-keys:caller:${callerId}`;
  }

  /** SET of every API key id, so keys are listed without SCAN. */
  apiKeyIds(): string {
    return `${this.prefix}:api-keys:ids`;
  }

  /** ZSET execution id → time its slot was taken: one concurrency quota's executions in flight. */
  inFlight(...partition: string[]): string {
    return `${this.prefix}:in-flight:${partition.map(encodeURIComponent).join(':')}`;
  }

  /**
   * What every key of one skill's flow control (skill.json `concurrency` and `rate_limit`, across
   * its versions) and debounce starts with; the flow scripts append the rest (flow-slots.lua). On
   * the skill's home tag (ShardMap.home: the prefix at one shard), where its gated and debounced
   * executions are, so that the scripts reach their records in one slot.
   */
  flow(skillId: string): string {
    return `${this.shards.homeTag(skillId)}:flow:${encodeURIComponent(skillId)}:`;
  }

  /** What the records of a skill's gated and debounced executions start with: its home tag's. */
  homeRecords(skillId: string): string {
    return `${this.shards.homeTag(skillId)}:exec:`;
  }

  /**
   * STRING: the execution that one debounce key (context.debounce) has open, for one skill and one
   * caller (`scope`: an authenticated caller, or an anonymous one's caller id), by mode; on the
   * skill's home tag, as its flow keys.
   */
  debounce(skillId: string, scope: string, mode: string, key: string): string {
    return `${this.flow(skillId)}debounce:${[scope, mode, key].map(encodeURIComponent).join(':')}`;
  }

  /** ZSET start → epoch ms: the starts of one skill's rate limit within its window (rate-starts.ts). */
  rateStarts(skillId: string): string {
    return `${this.flow(skillId)}starts`;
  }

  /** Prefix of the fixed-window counters of rate limits. */
  rateLimits(): string {
    return `${this.prefix}:rate`;
  }

  memory(callerId: string): string {
    return `${this.prefix}:memory:${callerId}`;
  }

  /**
   * STREAM of the changes webhooks are to hear of (execution id and status), appended by the
   * execution store's TRANSITION for records that have a webhook; worker dispatchers read it as a
   * consumer group. One per hash tag, beside the records whose changes it holds (the transition
   * appends in its record's slot): the prefix's for legacy ids, each vshard's for its own.
   */
  notifications(executionId = ''): string {
    return `${this.tagOf(executionId)}:notifications`;
  }

  /**
   * Every notifications stream a reader follows, each with its vshard: the prefix's (no vshard:
   * legacy ids, and every id at one shard), then each active vshard's when there are more.
   */
  notificationStreams(): NotificationStream[] {
    const { shards } = this;
    const vshards = shards.shards > 1 ? shards.active() : [];
    return [
      { key: `${this.prefix}:notifications` },
      ...vshards.map((vshard) => ({ key: `${shards.tag(vshard)}:notifications`, vshard })),
    ];
  }

  /**
   * HASH caller → epoch ms until which some gateway keeps an event stream of its executions open
   * (renewed while it does): their changes are notifications meanwhile.
   */
  followedCallers(): string {
    return `${this.prefix}:followed-callers`;
  }

  /** Pub/sub channel on which a gateway announces that the callers with webhooks or followers changed. */
  notifiedCallersChanged(): string {
    return `${this.prefix}:notified-callers-changed`;
  }

  /** HASH of one webhook: its owner, URL, mode, filters and signing secret. */
  webhook(id: string): string {
    return `${this.prefix}:webhook:${id}`;
  }

  /** SET of the ids of one caller's standing webhooks. */
  webhooksOf(owner: string): string {
    return `${this.prefix}:webhooks:by:${owner}`;
  }

  /** HASH caller → `end` or `change`: the callers with standing webhooks, for gateways to read at once. */
  webhookCallers(): string {
    return `${this.prefix}:webhooks:callers`;
  }

  /** HASH of what A2A keeps of one task (an execution): the context it was sent in, its routing. */
  a2aTask(taskId: string): string {
    return `${this.prefix}:a2a:task:${taskId}`;
  }

  /** SET of the ids of the tasks one caller started in one A2A context. */
  a2aContext(owner: string, contextId: string): string {
    return `${this.prefix}:a2a:context:${owner}:${contextId}`;
  }

  /** SET of the ids of one A2A task's push notification webhooks. */
  taskWebhooks(taskId: string): string {
    return `${this.prefix}:webhooks:task:${taskId}`;
  }

  /** HASH of one delivery of an event to a webhook: its state, attempts and payload. */
  delivery(id: string): string {
    return `${this.prefix}:delivery:${id}`;
  }

  /** LIST of one delivery's attempts (JSON), in order. */
  deliveryAttempts(id: string): string {
    return `${this.prefix}:delivery:${id}:attempts`;
  }

  /** LIST of one webhook's delivery ids, newest first. */
  deliveriesOf(webhookId: string): string {
    return `${this.prefix}:deliveries:${webhookId}`;
  }

  /** HASH of one schedule: its definition (JSON), and the execution of its latest launched run. */
  schedule(id: string): string {
    return `${this.prefix}:schedule:${id}`;
  }

  /** ZSET of one schedule's latest runs (JSON), scored by their due time (epoch ms). */
  scheduleRuns(id: string): string {
    return `${this.prefix}:schedule:${id}:runs`;
  }

  /**
   * ZSET (all scores 0) of `<created ms, 13 digits>:<id>` of every schedule, or one owner's: listed in
   * the order they were made, from a member on (the cursor); its size is the owner's count.
   */
  schedules(owner?: string): string {
    return owner === undefined ? `${this.prefix}:schedules` : `${this.prefix}:schedules:by:${owner}`;
  }
}
