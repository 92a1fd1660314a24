import { DeliveryListQuery } from '@skillrun/core';
import { errors, json, ok, queryParameters } from '../http/openapi-parts';

const tags = ['webhooks'];
const webhookId = { name: 'webhook_id', in: 'path', required: true, schema: { type: 'string' } };
const deliveryId = { name: 'delivery_id', in: 'path', required: true, schema: { type: 'string' } };
const OWNED =
  "The caller's own webhooks (an admin's: anyone's); an anonymous invocation's webhook by its id alone. Any other is 404 WEBHOOK_NOT_FOUND.";

/**
 * Ours: completion webhooks, under /webhooks. Deliveries are POSTed `{type, timestamp, data}` (data:
 * the execution as GET status shows it), signed per Standard Webhooks.
 */
export const webhookPaths = {
  '/webhooks': {
    post: {
      operationId: 'createWebhook',
      summary: "A standing webhook: told of the end (or every change) of the caller's executions (ours)",
      description:
        'Applies to the executions the caller invokes from now on (other gateways: within 2 s), optionally of some skills only. Each delivery is POSTed with `webhook-id`, `webhook-timestamp` and `webhook-signature` (Standard Webhooks: HMAC-SHA256 with the secret answered here, once). Needs credentials.',
      tags,
      requestBody: { required: true, content: json('NewWebhook') },
      responses: {
        '201': ok('The webhook and its secret (shown this once).', 'CreatedWebhook'),
        ...errors('400', '401', '413', '415', '503'),
      },
    },
    get: {
      operationId: 'listWebhooks',
      summary: "The caller's standing webhooks, oldest first (ours)",
      tags,
      responses: { '200': ok('Never a secret.', 'WebhookList'), ...errors('401', '503') },
    },
  },
  '/webhooks/{webhook_id}': {
    get: {
      operationId: 'getWebhook',
      summary: 'One webhook (ours)',
      description: OWNED,
      tags,
      parameters: [webhookId],
      responses: { '200': ok('Never its secret.', 'WebhookView'), ...errors('401', '404', '503') },
    },
    delete: {
      operationId: 'deleteWebhook',
      summary: 'Removes a webhook: nothing more is delivered to it (ours)',
      description: OWNED,
      tags,
      parameters: [webhookId],
      responses: { '204': { description: 'Removed.' }, ...errors('401', '404', '503') },
    },
  },
  '/webhooks/{webhook_id}/deliveries': {
    get: {
      operationId: 'listWebhookDeliveries',
      summary: "A webhook's deliveries, newest first, each with every attempt (ours)",
      description: `Kept a week. ${OWNED}`,
      tags,
      parameters: [webhookId, ...queryParameters(DeliveryListQuery)],
      responses: {
        '200': ok('One page; follow next_cursor for more.', 'DeliveryListPage'),
        ...errors('400', '401', '404', '503'),
      },
    },
  },
  '/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver': {
    post: {
      operationId: 'redeliverWebhook',
      summary: 'Sends a delivery again, once, with the same webhook-id and body (ours)',
      description: `The attempt is recorded with the others. ${OWNED}`,
      tags,
      parameters: [webhookId, deliveryId],
      responses: {
        '202': ok('The delivery, pending again.', 'WebhookDelivery'),
        ...errors('401', '404', '503'),
      },
    },
  },
};
