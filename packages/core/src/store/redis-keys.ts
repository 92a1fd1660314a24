/** Every Redis key the service owns (BullMQ owns its own under the same prefix). */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  execution(executionId: string): string {
    return `${this.prefix}:exec:${executionId}`;
  }

  /**
   * STRING holding an ended execution's output or error when it is too long for the record's
   * compact encoding; it expires with the record.
   */
  outcome(executionId: string): string {
    return `${this.prefix}:exec:${executionId}:outcome`;
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
   * LIST of the ids of the executions created in one hour (epoch hours), everyone's or one
   * authenticated caller's (execution-index.ts).
   */
  executionsInHour(hour: number, owner?: string): string {
    return owner === undefined
      ? `${this.prefix}:executions:${hour}`
      : `${this.prefix}:executions:${hour}:by:${owner}`;
  }

  /**
   * SORTED SET of the tasks waiting for someone (scored by when they opened): every skill's, or one
   * skill's. A task leaves them when its execution ends.
   */
  openTasks(skillId?: string): string {
    return skillId === undefined ? `${this.prefix}:tasks:open` : `${this.prefix}:tasks:open:${skillId}`;
  }

  /** STRING set when a one-time task link has been used (its token id), until the link expires. */
  usedTaskLink(tokenId: string): string {
    return `${this.prefix}:task-link-used:${tokenId}`;
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

  /** BullMQ's HASH of a job (BullMQ's own key layout: prefix, queue name, job id). */
  job(queueName: string, jobId: string): string {
    return `${this.prefix}:${queueName}:${jobId}`;
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
   * consumer group.
   */
  notifications(): string {
    return `${this.prefix}:notifications`;
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
}
