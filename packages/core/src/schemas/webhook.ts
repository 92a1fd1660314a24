import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from './json-schema';

/** When a webhook is called: when the execution ends, or at every change of its status. */
export const WebhookMode = StringEnum(['end', 'change'], {
  description: '`end` (default): once, when the execution ends; `change`: at every change and at the end.',
});
export type WebhookMode = Static<typeof WebhookMode>;

const WebhookUrl = Type.String({
  format: 'uri',
  pattern: '^https?://',
  maxLength: 2048,
  description: 'Where the event is POSTed: http or https, a public address unless OUTBOUND_ALLOW allows it.',
});

const SkillId = Type.String({ maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' });

/** An invocation's own webhook (the body's `webhook`): called for that execution only. */
export const WebhookTarget = Type.Object(
  { url: WebhookUrl, on: Type.Optional(WebhookMode) },
  { additionalProperties: false },
);
export type WebhookTarget = Static<typeof WebhookTarget>;

/** POST /webhooks: a caller's standing subscription to its executions' ends (or changes). */
export const NewWebhook = Type.Object(
  {
    url: WebhookUrl,
    on: Type.Optional(WebhookMode),
    skills: Type.Optional(
      Type.Array(SkillId, {
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        description: 'Only executions of these skills (default: all of them).',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type NewWebhook = Static<typeof NewWebhook>;

export const WebhookId = Type.String({ pattern: '^wh_[A-Za-z0-9_-]{22}$' });

/** A webhook as it can be shown: everything but its secret. */
export const WebhookView = Type.Object({
  id: WebhookId,
  url: Type.String(),
  on: WebhookMode,
  skills: Type.Optional(Type.Array(Type.String())),
  description: Type.Optional(Type.String()),
  execution_id: Type.Optional(
    Type.String({ description: "An invocation's own webhook: the execution it was made for." }),
  ),
  created_at: Type.String({ format: 'date-time' }),
});
export type WebhookView = Static<typeof WebhookView>;

/** The secret a webhook's deliveries are signed with (Standard Webhooks), shown once. */
export const WebhookSecret = Type.String({
  pattern: '^whsec_[A-Za-z0-9+/=]+$',
  description: 'whsec_ and 32 random bytes in base64: the HMAC-SHA256 key. Shown this once.',
});

export const CreatedWebhook = Type.Object({ ...WebhookView.properties, secret: WebhookSecret });
export type CreatedWebhook = Static<typeof CreatedWebhook>;

export const WebhookList = Type.Object({ webhooks: Type.Array(WebhookView) });

/** One try at delivering an event: what the receiver answered, or why nothing was. */
export const DeliveryAttempt = Type.Object({
  at: Type.String({ format: 'date-time' }),
  duration_ms: Type.Integer({ minimum: 0 }),
  http_status: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
});
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;

export const DeliveryState = StringEnum(['pending', 'delivered', 'failed'], {
  description: '`pending` while it is tried (or waits for its next try), then `delivered` or `failed`.',
});
export type DeliveryState = Static<typeof DeliveryState>;

/** One event sent to one webhook, with every attempt at it. */
export const WebhookDelivery = Type.Object({
  id: Type.String({ description: 'The `webhook-id` header: the same on every attempt and redelivery.' }),
  webhook_id: WebhookId,
  execution_id: Type.String(),
  type: Type.String({ description: '`execution.ended` or `execution.changed`.' }),
  status: Type.String({ description: "The execution's status the event reports." }),
  state: DeliveryState,
  attempts: Type.Array(DeliveryAttempt),
  created_at: Type.String({ format: 'date-time' }),
  delivered_at: Type.Optional(Type.String({ format: 'date-time' })),
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const DeliveryListPage = Type.Object({
  deliveries: Type.Array(WebhookDelivery),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

export const DeliveryListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;
