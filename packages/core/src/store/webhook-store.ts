import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { TaskPush } from '../a2a/task-push';
import type { CreatedWebhook, NewWebhook, WebhookMode, WebhookTarget, WebhookView } from '../schemas/webhook';
import type { RedisKeys } from './keys/redis-keys';

/**
 * A webhook as the service keeps it: who owns it (null: an anonymous invocation's) and its secret;
 * an A2A task's push notification configuration besides (its deliveries are A2A's payloads).
 */
export interface StoredWebhook {
  view: WebhookView;
  owner: string | null;
  secret: string;
  push?: TaskPush;
}

/** How long an invocation's own webhook outlives its execution's retention: its deliveries' window. */
const INVOCATION_WEBHOOK_EXTRA_SECONDS = 86_400;

/** An A2A task's push notification configurations, at most. */
export const MAX_TASK_PUSH_CONFIGS = 10;

/**
 * Webhooks in Redis: a caller's standing ones (POST /webhooks), the one an invocation names for
 * its own execution, and an A2A task's push notification configurations (each a webhook of the
 * task's execution, told of every change, listed by the task). A secret is made here, returned once and kept to sign deliveries (an HMAC
 * needs the key itself, so it cannot be stored hashed as API keys are). The callers that have
 * standing webhooks, and whether one wants every change, are kept in one hash that gateways read
 * whole, so that an invocation costs no lookup.
 */
export class WebhookStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly executionTtlSeconds: number,
    private readonly clock: () => number = Date.now,
  ) {}

  async createStanding(owner: string, request: NewWebhook): Promise<CreatedWebhook> {
    const created = this.newWebhook(request.on ?? 'end', request.url, {
      ...(request.skills ? { skills: request.skills } : {}),
      ...(request.description === undefined ? {} : { description: request.description }),
    });
    await this.redis
      .multi()
      .hset(this.keys.webhooks.webhook(created.id), fieldsOf(created, owner))
      .sadd(this.keys.webhooks.webhooksOf(owner), created.id)
      .exec();
    await this.refreshCaller(owner);
    return created;
  }

  /** The webhook an invocation names, for its execution only; it expires some time after it. */
  async createForExecution(
    owner: string | undefined,
    target: WebhookTarget,
    executionId: string,
  ): Promise<CreatedWebhook> {
    const created = this.newWebhook(target.on ?? 'end', target.url, { execution_id: executionId });
    const key = this.keys.webhooks.webhook(created.id);
    await this.redis
      .multi()
      .hset(key, fieldsOf(created, owner ?? null))
      .expire(key, this.executionTtlSeconds + INVOCATION_WEBHOOK_EXTRA_SECONDS)
      .exec();
    return created;
  }

  /**
   * A push notification configuration of an A2A task: told of every change of its execution, it
   * expires as an invocation's own webhook does. One of the task's with the same configuration id
   * is replaced. Signed as every delivery, with the configuration's token as the key when it has
   * one (whsec_ and the token in base64), so that its receiver can check the signature.
   */
  async createForTask(owner: string | undefined, taskId: string, url: string, push: TaskPush) {
    const replaced = (await this.ofTask(taskId)).find((webhook) => webhook.push?.configId === push.configId);
    if (replaced) await this.remove(replaced);
    const created = this.newWebhook('change', url, { execution_id: taskId });
    const secret =
      push.token === undefined ? created.secret : `whsec_${Buffer.from(push.token).toString('base64')}`;
    const key = this.keys.webhooks.webhook(created.id);
    const task = this.keys.webhooks.taskWebhooks(taskId);
    const ttl = this.executionTtlSeconds + INVOCATION_WEBHOOK_EXTRA_SECONDS;
    await this.redis
      .multi()
      .hset(key, { ...fieldsOf({ ...created, secret }, owner ?? null), ...pushFieldsOf(push) })
      .expire(key, ttl)
      .sadd(task, created.id)
      .expire(task, ttl)
      .exec();
    return (await this.get(created.id)) as StoredWebhook;
  }

  /** An A2A task's push notification configurations, oldest first. */
  async ofTask(taskId: string): Promise<StoredWebhook[]> {
    const ids = await this.redis.smembers(this.keys.webhooks.taskWebhooks(taskId));
    const found = await Promise.all(ids.map((id) => this.get(id)));
    return found
      .filter((webhook): webhook is StoredWebhook => webhook !== null)
      .sort((a, b) => a.view.created_at.localeCompare(b.view.created_at));
  }

  async get(id: string): Promise<StoredWebhook | null> {
    return storedOf(id, await this.redis.hgetall(this.keys.webhooks.webhook(id)));
  }

  /** A caller's standing webhooks, oldest first. */
  async list(owner: string): Promise<StoredWebhook[]> {
    const ids = await this.redis.smembers(this.keys.webhooks.webhooksOf(owner));
    const found = await Promise.all(ids.map((id) => this.get(id)));
    return found
      .filter((webhook): webhook is StoredWebhook => webhook !== null)
      .sort((a, b) => a.view.created_at.localeCompare(b.view.created_at));
  }

  /** Removes a webhook; false when there was none. */
  async remove(webhook: StoredWebhook): Promise<boolean> {
    const { id } = webhook.view;
    const removed = await this.redis.del(this.keys.webhooks.webhook(id));
    if (webhook.push && webhook.view.execution_id !== undefined) {
      await this.redis.srem(this.keys.webhooks.taskWebhooks(webhook.view.execution_id), id);
    }
    if (webhook.owner !== null && webhook.view.execution_id === undefined) {
      await this.redis.srem(this.keys.webhooks.webhooksOf(webhook.owner), id);
      await this.refreshCaller(webhook.owner);
    }
    return removed === 1;
  }

  /** Every caller with a standing webhook, and whether one of them wants every change. */
  async callerModes(): Promise<Map<string, WebhookMode>> {
    return new Map(Object.entries(await this.redis.hgetall(this.keys.webhooks.webhookCallers()))) as Map<
      string,
      WebhookMode
    >;
  }

  /** Recomputes what webhookCallers says of one caller from its standing webhooks. */
  private async refreshCaller(owner: string): Promise<void> {
    const webhooks = await this.list(owner);
    const callers = this.keys.webhooks.webhookCallers();
    if (webhooks.length === 0) await this.redis.hdel(callers, owner);
    else {
      const mode = webhooks.some(({ view }) => view.on === 'change') ? 'change' : 'end';
      await this.redis.hset(callers, owner, mode);
    }
  }

  private newWebhook(
    on: WebhookMode,
    url: string,
    extra: Pick<WebhookView, 'skills' | 'description' | 'execution_id'>,
  ): CreatedWebhook {
    return {
      id: `wh_${randomBytes(16).toString('base64url').slice(0, 22)}`,
      url,
      on,
      ...extra,
      created_at: new Date(this.clock()).toISOString(),
      secret: `whsec_${randomBytes(32).toString('base64')}`,
    };
  }
}

function fieldsOf(created: CreatedWebhook, owner: string | null): Record<string, string> {
  return {
    owner: owner ?? '',
    url: created.url,
    on: created.on,
    secret: created.secret,
    created_at: created.created_at,
    ...(created.skills ? { skills: JSON.stringify(created.skills) } : {}),
    ...(created.description === undefined ? {} : { description: created.description }),
    ...(created.execution_id === undefined ? {} : { execution_id: created.execution_id }),
  };
}

function pushFieldsOf(push: TaskPush): Record<string, string> {
  return {
    push_config_id: push.configId,
    push_version: push.version,
    ...(push.token === undefined ? {} : { push_token: push.token }),
    ...(push.authentication === undefined
      ? {}
      : { push_scheme: push.authentication.scheme, push_credentials: push.authentication.credentials }),
  };
}

function pushOf(fields: Record<string, string>): TaskPush | undefined {
  if (fields.push_config_id === undefined) return undefined;
  return {
    configId: fields.push_config_id,
    version: fields.push_version === '0.3' ? '0.3' : '1.0',
    ...(fields.push_token === undefined ? {} : { token: fields.push_token }),
    ...(fields.push_scheme === undefined
      ? {}
      : { authentication: { scheme: fields.push_scheme, credentials: fields.push_credentials ?? '' } }),
  };
}

function storedOf(id: string, fields: Record<string, string>): StoredWebhook | null {
  if (fields.url === undefined || fields.secret === undefined) return null;
  const push = pushOf(fields);
  return {
    view: {
      id,
      url: fields.url,
      on: fields.on === 'change' ? 'change' : 'end',
      ...(fields.skills === undefined ? {} : { skills: JSON.parse(fields.skills) as string[] }),
      ...(fields.description === undefined ? {} : { description: fields.description }),
      ...(fields.execution_id === undefined ? {} : { execution_id: fields.execution_id }),
      created_at: fields.created_at ?? '',
    },
    owner: fields.owner ? fields.owner : null,
    secret: fields.secret,
    ...(push === undefined ? {} : { push }),
  };
}
