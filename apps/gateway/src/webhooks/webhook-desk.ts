import {
  type CreatedWebhook,
  type DeliveryListQuery,
  type NewWebhook,
  type Principal,
  SkillError,
  type WebhookDelivery,
  type WebhookView,
} from '@skillrun/core';
import {
  deliveryJobOptions,
  type StoredWebhook,
  type WebhookDeliveries,
  type WebhookStore,
} from '@skillrun/core/data';
import type { Queue } from 'bullmq';
import { assertRole } from '../auth/assert-role';
import type { Identities } from '../auth/identities';
import { principalOf } from '../auth/identity';
import { operatesAll } from '../auth/role-of';
import { decodeCursor, encodeCursor } from '../http/page-cursor';
import type { RequestHeaders } from '../http/request-headers';
import type { NotifiedCallers } from '../invocations/notified-callers';
import type { WebhookUrlCheck } from './webhook-url-check';

export interface WebhookDeskDeps {
  webhooks: WebhookStore;
  deliveries: WebhookDeliveries;
  notified: NotifiedCallers;
  /** The webhook queue: a redelivery is a job on it. */
  queue: Queue;
  identities: Identities;
  urls: WebhookUrlCheck;
}

/**
 * /webhooks: a caller's standing webhooks (made, listed, removed), and the deliveries of any
 * webhook it owns (an invocation's own included), listed and redelivered by hand. Standing webhooks
 * need credentials; an anonymous invocation's webhook is reached by its id alone (as its execution
 * is). A webhook the reader may not see is the same 404 as one that does not exist.
 */
export class WebhookDesk {
  constructor(private readonly deps: WebhookDeskDeps) {}

  async create(request: NewWebhook, headers: RequestHeaders): Promise<CreatedWebhook> {
    const principal = await this.caller(
      headers,
      "Standing webhooks need credentials: they hear of the caller's executions",
    );
    // Its deliveries carry outputs: a viewer's would be a way round payload visibility.
    assertRole(principal, 'operator', 'Creating a webhook', 'callers too');
    this.deps.urls.assert(request.url, '/url');
    const created = await this.deps.webhooks.createStanding(principal.callerId, request);
    await this.deps.notified.changed();
    return created;
  }

  async list(headers: RequestHeaders): Promise<{ webhooks: WebhookView[] }> {
    const principal = await this.caller(headers, 'Listing webhooks needs credentials');
    const found = await this.deps.webhooks.list(principal.callerId);
    return { webhooks: found.map(({ view }) => view) };
  }

  async get(id: string, headers: RequestHeaders): Promise<WebhookView> {
    return (await this.owned(id, headers)).view;
  }

  async remove(id: string, headers: RequestHeaders): Promise<void> {
    const webhook = await this.owned(id, headers);
    await this.deps.webhooks.remove(webhook);
    await this.deps.notified.changed();
  }

  async deliveries(
    id: string,
    query: DeliveryListQuery,
    headers: RequestHeaders,
  ): Promise<{ deliveries: WebhookDelivery[]; next_cursor: string | null }> {
    await this.owned(id, headers);
    const from = query.cursor === undefined ? 0 : offsetOf(query.cursor);
    const { deliveries, next } = await this.deps.deliveries.list(id, query.limit ?? 20, from);
    return { deliveries, next_cursor: next === null ? null : encodeCursor({ offset: next }) };
  }

  /** Sends a delivery once more (one attempt, recorded with the others); answers it as it stands. */
  async redeliver(id: string, deliveryId: string, headers: RequestHeaders): Promise<WebhookDelivery> {
    await this.owned(id, headers);
    const principal = principalOf(await this.deps.identities.of(headers));
    if (principal) assertRole(principal, 'operator', 'Redelivering a webhook event', 'callers too');
    const found = await this.deps.deliveries.get(deliveryId);
    if (!found || found.delivery.webhook_id !== id) {
      throw new SkillError('WEBHOOK_NOT_FOUND', `Webhook ${id} has no delivery "${deliveryId}"`);
    }
    await this.deps.deliveries.reopen(deliveryId);
    await this.deps.queue.add(
      'deliver',
      { delivery_id: deliveryId },
      deliveryJobOptions(`${deliveryId}:again:${Date.now()}`, 1, 0),
    );
    return { ...found.delivery, state: 'pending' };
  }

  private async caller(headers: RequestHeaders, why: string): Promise<Principal> {
    const principal = principalOf(await this.deps.identities.of(headers));
    if (!principal) throw new SkillError('AUTH_REQUIRED', why);
    return principal;
  }

  /** The webhook, if the request's caller owns it (or is an admin, or it is an anonymous one's). */
  private async owned(id: string, headers: RequestHeaders): Promise<StoredWebhook> {
    const [webhook, identity] = await Promise.all([
      this.deps.webhooks.get(id),
      this.deps.identities.of(headers),
    ]);
    if (identity.kind === 'invalid') throw new SkillError('AUTH_REQUIRED', 'The credentials are not valid');
    const principal = principalOf(identity);
    if (
      webhook &&
      (webhook.owner === null || operatesAll(principal) || webhook.owner === principal?.callerId)
    ) {
      return webhook;
    }
    throw new SkillError('WEBHOOK_NOT_FOUND', `No webhook "${id}"`);
  }
}

function offsetOf(cursor: string): number {
  return decodeCursor(cursor, (decoded) =>
    Number.isInteger(decoded.offset) && (decoded.offset as number) >= 0
      ? (decoded.offset as number)
      : undefined,
  );
}
