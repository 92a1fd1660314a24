/** The keys of standing webhooks and of their deliveries. */
export class WebhookKeys {
  constructor(private readonly prefix: string) {}

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
}
