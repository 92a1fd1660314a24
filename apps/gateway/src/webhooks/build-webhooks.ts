import { WebhookDeliveries } from '@skillrun/core/data';
import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import { WebhookDesk } from './webhook-desk';
import { webhookPaths } from './webhook-paths';
import { webhookRoutes } from './webhook-routes';

/** Standing webhooks, and every webhook's deliveries. */
export function buildWebhooks(shared: GatewayShared): Slice {
  const desk = new WebhookDesk({
    webhooks: shared.webhooks,
    deliveries: new WebhookDeliveries(shared.redis, shared.keys),
    notified: shared.notified,
    queue: shared.queues.webhooks(),
    identities: shared.identities,
    urls: shared.webhookUrls,
  });
  return { routes: [{ path: '/webhooks', router: webhookRoutes(desk) }], paths: webhookPaths };
}
