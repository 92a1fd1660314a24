import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../redis/redis-script';
import type { DeliveryAttempt, DeliveryState, WebhookDelivery } from '../schemas/webhook';
import ADD from './add-delivery.lua';
import type { RedisKeys } from './keys/redis-keys';

/** An event about to be sent to a webhook. */
export interface NewDelivery {
  id: string;
  webhookId: string;
  executionId: string;
  type: string;
  status: string;
  /** The request body, kept so that every attempt and redelivery sends the same bytes. */
  payload: string;
  /** The body's media type, when it is not application/json (an A2A push notification's). */
  contentType?: string;
}

/** A delivery, and what is sent each time: its body and that body's media type. */
export interface StoredDelivery {
  delivery: WebhookDelivery;
  payload: string;
  contentType: string;
}

/** How long deliveries are kept after their webhook's latest event: a week, to look into and redeliver. */
const RETENTION_SECONDS = 7 * 86_400;

/** A webhook's listing keeps its newest deliveries only. */
const LISTED_PER_WEBHOOK = 1000;

/**
 * The deliveries of events to webhooks, each with its attempts, kept a week after the last event of
 * their webhook: what GET /webhooks/{id}/deliveries lists and a redelivery resends.
 */
export class WebhookDeliveries {
  private readonly addScript: RedisScript<number>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly clock: () => number = Date.now,
  ) {
    this.addScript = redisScript(redis, 'skillrunAddDelivery', ADD);
  }

  /** False when the delivery exists already (the event was handled before). */
  async add(delivery: NewDelivery): Promise<boolean> {
    const fields = {
      webhook_id: delivery.webhookId,
      execution_id: delivery.executionId,
      type: delivery.type,
      status: delivery.status,
      state: 'pending',
      created_at: new Date(this.clock()).toISOString(),
      payload: delivery.payload,
      ...(delivery.contentType === undefined ? {} : { content_type: delivery.contentType }),
    };
    const added = await this.addScript(
      [this.keys.webhooks.delivery(delivery.id), this.keys.webhooks.deliveriesOf(delivery.webhookId)],
      [RETENTION_SECONDS, LISTED_PER_WEBHOOK, delivery.id, ...Object.entries(fields).flat()],
    );
    return added === 1;
  }

  async get(id: string): Promise<StoredDelivery | null> {
    const [fields, attempts] = await Promise.all([
      this.redis.hgetall(this.keys.webhooks.delivery(id)),
      this.redis.lrange(this.keys.webhooks.deliveryAttempts(id), 0, -1),
    ]);
    if (fields.webhook_id === undefined) return null;
    return {
      delivery: deliveryOf(id, fields, attempts),
      payload: fields.payload ?? '',
      contentType: fields.content_type ?? 'application/json',
    };
  }

  /** Notes one attempt and the state it leaves the delivery in. */
  async recordAttempt(id: string, attempt: DeliveryAttempt, state: DeliveryState): Promise<void> {
    const attempts = this.keys.webhooks.deliveryAttempts(id);
    await this.redis
      .multi()
      .rpush(attempts, JSON.stringify(attempt))
      .expire(attempts, RETENTION_SECONDS)
      .hset(this.keys.webhooks.delivery(id), {
        state,
        ...(state === 'delivered' ? { delivered_at: attempt.at } : {}),
      })
      .exec();
  }

  /** A redelivery begins: the delivery is pending again (its earlier attempts stay listed). */
  async reopen(id: string): Promise<void> {
    await this.redis.hset(this.keys.webhooks.delivery(id), 'state', 'pending');
  }

  /** A webhook's deliveries, newest first; `cursor` is where the previous page stopped. */
  async list(
    webhookId: string,
    limit: number,
    cursor: number,
  ): Promise<{ deliveries: WebhookDelivery[]; next: number | null }> {
    const ids = await this.redis.lrange(this.keys.webhooks.deliveriesOf(webhookId), cursor, cursor + limit);
    const page = ids.slice(0, limit);
    const found = await Promise.all(page.map((id) => this.get(id)));
    return {
      deliveries: found.flatMap((entry) => (entry ? [entry.delivery] : [])),
      next: ids.length > limit ? cursor + limit : null,
    };
  }
}

function deliveryOf(id: string, fields: Record<string, string>, attempts: string[]): WebhookDelivery {
  return {
    id,
    webhook_id: fields.webhook_id ?? '',
    execution_id: fields.execution_id ?? '',
    type: fields.type ?? '',
    status: fields.status ?? '',
    state: (fields.state ?? 'pending') as DeliveryState,
    attempts: attempts.map((attempt) => JSON.parse(attempt) as DeliveryAttempt),
    created_at: fields.created_at ?? '',
    ...(fields.delivered_at === undefined ? {} : { delivered_at: fields.delivered_at }),
  };
}
