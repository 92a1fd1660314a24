import { ShardMap } from '../shard-map';
import { AuditKeys } from './audit-keys';
import { CallerKeys } from './caller-keys';
import { FlowKeys } from './flow-keys';
import { NotificationKeys } from './notification-keys';
import { RegistryKeys } from './registry-keys';
import { ScheduleKeys } from './schedule-keys';
import { WebhookKeys } from './webhook-keys';

/**
 * Every Redis key the service owns (BullMQ owns its own under the same prefix): an execution's own
 * here, every other family's in its own catalogue (`registry`, `flow`, ...). An execution's own keys
 * (record, outcome, chunks, its job and queue) start with its id's hash tag (ShardMap.tagOf: the
 * prefix, for every id but a sharded one); every other key with the prefix, but for a skill's flow
 * keys (its home's tag) and the notifications streams (one per tag).
 */
export class RedisKeys {
  readonly shards: ShardMap;
  readonly registry: RegistryKeys;
  readonly flow: FlowKeys;
  readonly notifications: NotificationKeys;
  readonly webhooks: WebhookKeys;
  readonly callers: CallerKeys;
  readonly schedules: ScheduleKeys;
  readonly audit: AuditKeys;

  /**
   * `shards`: REDIS_SHARDS, how many vshards take new executions (ShardMap); key names do not depend
   * on it, but for a skill's flow control and debounce, on its home (FlowKeys).
   */
  constructor(
    readonly prefix: string,
    shards = 1,
  ) {
    this.shards = new ShardMap(prefix, shards);
    this.registry = new RegistryKeys(prefix);
    this.flow = new FlowKeys(this.shards);
    this.notifications = new NotificationKeys(this.shards);
    this.webhooks = new WebhookKeys(prefix);
    this.callers = new CallerKeys(prefix);
    this.schedules = new ScheduleKeys(prefix);
    this.audit = new AuditKeys(prefix);
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
  /** HASH of what an execution tree with a budget (context.budget) spent, on its root's id; it expires. */
  budget(rootId: string): string {
    return `${this.tagOf(rootId)}:exec:${rootId}:budget`;
  }

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

  /**
   * SORTED SET of the executions awaiting an approval (scored by when they were created), on one
   * tag as openTasks: an execution leaves it when it is decided or ends.
   */
  pendingApprovals(tag: string = this.prefix): string {
    return `${tag}:approvals:pending`;
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

  /** ZSET execution id → deadline (epoch ms) of the composites waiting for a step. */
  waitingComposites(): string {
    return `${this.prefix}:composites:waiting`;
  }
}
