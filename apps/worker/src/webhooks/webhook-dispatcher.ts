import { type Execution, isTerminalStatus, type Logger } from '@skillrun/core';
import { type TaskNotes, taskPushPayload } from '@skillrun/core/a2a';
import {
  deliveryJobOptions,
  type ExecutionStore,
  type NotificationStream,
  type StoredWebhook,
  type WebhookDeliveries,
  type WebhookStore,
} from '@skillrun/core/data';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

export interface WebhookDispatcherDeps {
  /** A connection of its own: it blocks on XREADGROUP. */
  redis: Redis;
  /** The stream it reads (one of NotificationKeys.streams(): a dispatcher each). */
  stream: NotificationStream;
  store: ExecutionStore;
  webhooks: WebhookStore;
  /** What A2A keeps of a task (its context, its routing): part of its push notifications. */
  notes: TaskNotes;
  deliveries: WebhookDeliveries;
  queue: Queue;
  /** This worker's id: its name in the consumer group. */
  consumer: string;
  /** Tries of each delivery, and the first retry's delay (doubled each time after). */
  attempts: number;
  backoffMs: number;
  logger: Logger;
  clock?: () => number;
}

const GROUP = 'dispatchers';
/** How long one read blocks: also how long close() may wait for the loop to notice. */
const BLOCK_MS = 1000;
/** An event a dispatcher took and has not acknowledged for this long is taken over (it died). */
const CLAIM_IDLE_MS = 30_000;
const BATCH = 50;

type Entry = [id: string, fields: string[]];

/**
 * Turns a notifications stream (the ends and changes of executions that have webhooks, appended
 * by the execution store; one per hash tag, a dispatcher each) into deliveries: every worker reads it in one consumer group, so each
 * event is dispatched once; an event is acknowledged only once its deliveries are queued, and one
 * a dispatcher took and never acknowledged (it died) is taken over by another after a while. A
 * delivery's id is derived from the event and the webhook, so dispatching an event twice queues
 * nothing twice.
 */
export class WebhookDispatcher {
  private running: Promise<void> | undefined;
  private closed = false;
  private lastClaim = 0;
  private readonly clock: () => number;

  constructor(private readonly deps: WebhookDispatcherDeps) {
    this.clock = deps.clock ?? Date.now;
    deps.redis.on('error', () => {});
  }

  start(): void {
    this.running ??= this.loop();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.running;
    this.deps.redis.disconnect();
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      try {
        await this.ensureGroup();
        for (const entry of await this.next()) {
          if (this.closed) return;
          await this.dispatch(entry);
        }
      } catch (error) {
        if (this.closed) return;
        this.deps.logger.warn({ err: (error as Error).message }, 'webhook dispatch failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, BLOCK_MS));
      }
    }
  }

  private groupReady = false;

  private async ensureGroup(): Promise<void> {
    if (this.groupReady) return;
    try {
      // From the stream's start: events appended before any worker ran are dispatched too.
      await this.deps.redis.xgroup('CREATE', this.deps.stream.key, GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!/BUSYGROUP/.test((error as Error).message)) throw error;
    }
    this.groupReady = true;
  }

  /** Events another dispatcher left unacknowledged (now and then), else new ones. */
  private async next(): Promise<Entry[]> {
    const { redis, consumer } = this.deps;
    const stream = this.deps.stream.key;
    if (this.clock() - this.lastClaim >= CLAIM_IDLE_MS / 3) {
      this.lastClaim = this.clock();
      const [, claimed] = (await redis.xautoclaim(
        stream,
        GROUP,
        consumer,
        CLAIM_IDLE_MS,
        '0-0',
        'COUNT',
        BATCH,
      )) as [string, Entry[]];
      if (claimed.length > 0) return claimed;
    }
    const read = (await redis.xreadgroup(
      'GROUP',
      GROUP,
      consumer,
      'COUNT',
      BATCH,
      'BLOCK',
      BLOCK_MS,
      'STREAMS',
      stream,
      '>',
    )) as [string, Entry[]][] | null;
    return read?.[0]?.[1] ?? [];
  }

  private async dispatch([eventId, flat]: Entry): Promise<void> {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
    const ended = isTerminalStatus(fields.status ?? '');
    // Most events may be for callers' event streams only: the record is read when a webhook wants it.
    const targets = await this.targets(fields, ended);
    const execution =
      targets.length > 0 ? await this.deps.store.records.get(fields.execution_id ?? '') : null;
    if (execution) {
      await Promise.all(targets.map((webhook) => this.queue(eventId, webhook, execution, ended)));
    }
    await this.deps.redis.xack(this.deps.stream.key, GROUP, eventId);
  }

  /**
   * The webhooks that hear of this event: the invocation's own, its caller's standing ones, and
   * the push notification configurations of its A2A task.
   */
  private async targets(fields: Record<string, string>, ended: boolean): Promise<StoredWebhook[]> {
    const { webhooks } = this.deps;
    const [own, standing, pushes] = await Promise.all([
      fields.webhook_id ? webhooks.get(fields.webhook_id) : null,
      fields.owner ? webhooks.list(fields.owner) : [],
      webhooks.ofTask(fields.execution_id ?? ''),
    ]);
    return [...(own ? [own] : []), ...standing, ...pushes].filter(
      ({ view }) =>
        (ended || view.on === 'change') &&
        (view.skills === undefined || view.skills.includes(fields.skill_id ?? '')),
    );
  }

  /**
   * The event's name in its deliveries' ids: its entry id, after its vshard on a vshard's stream
   * (two streams may hold the same entry id).
   */
  private eventName(eventId: string): string {
    const { vshard } = this.deps.stream;
    return vshard === undefined ? eventId : `v${vshard}-${eventId}`;
  }

  private async queue(eventId: string, webhook: StoredWebhook, execution: Execution, ended: boolean) {
    const { deliveries, queue, attempts, backoffMs } = this.deps;
    const id = `msg_${this.eventName(eventId)}_${webhook.view.id.slice(3)}`;
    const type = ended ? 'execution.ended' : 'execution.changed';
    const body = webhook.push
      ? taskPushPayload(execution, await this.deps.notes.read(execution.execution_id), webhook.push.version)
      : { body: JSON.stringify({ type, timestamp: new Date(this.clock()).toISOString(), data: execution }) };
    const added = await deliveries.add({
      id,
      webhookId: webhook.view.id,
      executionId: execution.execution_id,
      type,
      status: execution.status,
      payload: body.body,
      ...('contentType' in body ? { contentType: body.contentType } : {}),
    });
    // A delivery that exists was queued by an earlier dispatch, unless that one died in between.
    if (!added && (await deliveries.get(id))?.delivery.state !== 'pending') return;
    await queue.add('deliver', { delivery_id: id }, deliveryJobOptions(id, attempts, backoffMs));
  }
}
