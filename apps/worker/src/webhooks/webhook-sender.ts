import { type DeliveryState, type Logger, type OutboundHttp, OutboundRefusal } from '@skillrun/core';
import { taskPushHeaders } from '@skillrun/core/a2a';
import type { DeliveryJob, ExecutionEngine, WebhookDeliveries, WebhookStore } from '@skillrun/core/data';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import { Webhook } from 'standardwebhooks';

export interface WebhookSenderDeps {
  deliveries: WebhookDeliveries;
  webhooks: WebhookStore;
  /** SSRF-safe and bounded in time and size (OUTBOUND_ALLOW, WEBHOOK_TIMEOUT_MS). */
  http: OutboundHttp;
  /** Whether the status a delivery tells is on the replicas (ACK_REPLICAS), so that it may be sent. */
  engine: Pick<ExecutionEngine, 'readSession'>;
  /** How long a delivery the replicas have not confirmed yet waits before it is asked again (WEBHOOK_BACKOFF_MS). */
  withheldMs: number;
  logger: Logger;
  clock?: () => number;
}

/** What one attempt came to. */
interface Outcome {
  status?: number;
  error?: string;
  /** Trying again cannot help: the URL is refused, or the webhook is gone. */
  final?: boolean;
}

/**
 * Sends one delivery (a job of the webhook queue): the payload POSTed to the webhook's URL (with
 * an A2A push notification configuration's token and credentials, if it is one), signed
 * per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`: HMAC-SHA256 of
 * `id.timestamp.payload` with the webhook's secret, by the `standardwebhooks` library). A 2xx
 * delivers it; anything else is recorded and thrown, for BullMQ to retry with backoff until the
 * job's attempts are spent, when the delivery is marked failed. A status the replicas have not
 * confirmed yet (ACK_REPLICAS: a failover could undo it) is not sent: its delivery waits and is
 * asked again, without spending an attempt, for as long as it takes.
 */
export class WebhookSender {
  private readonly clock: () => number;

  constructor(private readonly deps: WebhookSenderDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  async deliver(job: Job<DeliveryJob>, token: string | undefined): Promise<void> {
    const id = job.data.delivery_id;
    const session = this.deps.engine.readSession();
    const found = await this.deps.deliveries.get(id);
    // Past its retention: there is nothing left to send.
    if (!found) return;
    if (!(await session.mayTell(found.delivery))) await this.withhold(job, token);
    const startedAt = this.clock();
    const outcome = await this.attempt(id, found.delivery.webhook_id, found.payload, found.contentType);
    const delivered = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    const last = outcome.final === true || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const state: DeliveryState = delivered ? 'delivered' : last ? 'failed' : 'pending';
    await this.deps.deliveries.recordAttempt(
      id,
      {
        at: new Date(startedAt).toISOString(),
        duration_ms: Math.max(0, this.clock() - startedAt),
        ...(outcome.status === undefined ? {} : { http_status: outcome.status }),
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
      },
      state,
    );
    if (delivered) return;
    const reason = outcome.error ?? `the receiver answered ${outcome.status}`;
    this.deps.logger.info(
      { delivery: id, webhook: found.delivery.webhook_id, reason, state },
      'webhook not delivered',
    );
    throw outcome.final ? new UnrecoverableError(reason) : new Error(reason);
  }

  /**
   * Puts a delivery off for `withheldMs` (BullMQ's delay, which spends no attempt: the receiver
   * was not asked), its state left pending.
   */
  private async withhold(job: Job<DeliveryJob>, token: string | undefined): Promise<never> {
    this.deps.logger.debug(
      { delivery: job.data.delivery_id },
      'webhook put off: its status is not on the replicas yet',
    );
    await job.moveToDelayed(this.clock() + this.deps.withheldMs, token);
    throw new DelayedError();
  }

  private async attempt(
    id: string,
    webhookId: string,
    payload: string,
    contentType: string,
  ): Promise<Outcome> {
    const webhook = await this.deps.webhooks.get(webhookId);
    if (!webhook) return { error: 'the webhook was deleted', final: true };
    const now = new Date(this.clock());
    try {
      const answer = await this.deps.http.send(webhook.view.url, {
        method: 'POST',
        headers: {
          // An A2A task's push notification: the token and credentials its receiver checks.
          ...(webhook.push ? taskPushHeaders(webhook.push) : {}),
          'content-type': contentType,
          'user-agent': 'skillrun-webhooks',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': new Webhook(webhook.secret).sign(id, now, payload),
        },
        body: payload,
      });
      return { status: answer.status };
    } catch (error) {
      const refused = error instanceof OutboundRefusal && error.reason !== 'too-large';
      return { error: describe(error), ...(refused ? { final: true } : {}) };
    }
  }
}

/** Why nothing was answered, in words that name no secret (the URL's host, not its query). */
function describe(error: unknown): string {
  if (error instanceof OutboundRefusal) return error.message;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (error.name === 'TimeoutError' || error.name === 'AbortError')
      return 'the receiver did not answer in time';
    return typeof code === 'string' ? `the receiver could not be reached (${code})` : error.message;
  }
  return String(error);
}
