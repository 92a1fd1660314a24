import type {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { TaskPush, TaskPushVersion } from '@skillrun/core/a2a';
import { MAX_TASK_PUSH_CONFIGS, type StoredWebhook, type WebhookStore } from '@skillrun/core/data';
import type { Identities } from '../../auth/identities';
import { principalOf } from '../../auth/identity';
import type { RequestHeaders } from '../../http/request-headers';
import type { WebhookUrlCheck } from '../../webhooks/webhook-url-check';
import type { AgentDeps } from '../agent-deps';
import { readTask } from '../read-task';

export interface TaskPushConfigsDeps extends Pick<AgentDeps, 'store' | 'executions'> {
  webhooks: WebhookStore;
  urls: WebhookUrlCheck;
  identities: Identities;
}

/** A configuration as A2A shows it: never its credentials, which only the receiver is sent. */
export function configView(taskId: string, webhook: StoredWebhook): TaskPushNotificationConfig {
  const push = webhook.push as TaskPush;
  return {
    tenant: '',
    id: push.configId,
    taskId,
    url: webhook.view.url,
    token: push.token ?? '',
    authentication: push.authentication ? { scheme: push.authentication.scheme, credentials: '' } : undefined,
  };
}

/**
 * What a client's configuration asks for, checked: a URL a delivery may be sent to (as a webhook's:
 * public unless OUTBOUND_ALLOW allows it), its id (one is made when it names none), the token and
 * credentials its receiver is sent, and the version of the payload it reads.
 */
export function taskPushOf(
  config: TaskPushNotificationConfig,
  version: TaskPushVersion,
  urls: WebhookUrlCheck,
): { url: string; push: TaskPush } {
  if (!config.url) throw new RequestMalformedError('The push notification configuration has no url');
  urls.assert(config.url, '/url');
  const { authentication } = config;
  return {
    url: config.url,
    push: {
      configId: config.id || crypto.randomUUID(),
      version,
      ...(config.token ? { token: config.token } : {}),
      ...(authentication?.scheme
        ? { authentication: { scheme: authentication.scheme, credentials: authentication.credentials } }
        : {}),
    },
  };
}

/**
 * An A2A task's push notification configurations (set, get, list, delete), each a webhook of its
 * execution (WebhookStore), so that the worker's webhook machinery delivers them: queued once per
 * change, signed, sent only to public addresses, retried.
 * A task the caller may not read (another caller's) is TaskNotFound, exactly as an unknown one.
 */
export class TaskPushConfigs {
  constructor(private readonly deps: TaskPushConfigsDeps) {}

  /**
   * Adds a configuration to a task (one of the same id is replaced), which is then told of every
   * change of the task from now on. A task that has ended is told of nothing more.
   */
  async create(
    config: TaskPushNotificationConfig,
    version: TaskPushVersion,
    headers: RequestHeaders,
  ): Promise<TaskPushNotificationConfig> {
    const { taskId } = config;
    await readTask(this.deps, taskId, headers);
    const { url, push } = taskPushOf(config, version, this.deps.urls);
    const existing = await this.deps.webhooks.ofTask(taskId);
    const replaces = existing.some((webhook) => webhook.push?.configId === push.configId);
    if (!replaces && existing.length >= MAX_TASK_PUSH_CONFIGS) {
      throw new RequestMalformedError(
        `Task ${taskId} has ${MAX_TASK_PUSH_CONFIGS} push notification configurations, the most it may have: delete one first`,
      );
    }
    const owner = principalOf(await this.deps.identities.of(headers))?.callerId;
    const created = await this.deps.webhooks.createForTask(owner, taskId, url, push);
    await this.deps.store.watchers.follow(taskId);
    return configView(taskId, created);
  }

  /** One configuration of the task; without an id (0.3's get names none), its first. */
  async get(request: GetTaskPushNotificationConfigRequest, headers: RequestHeaders) {
    const configs = await this.of(request.taskId, headers);
    const found = request.id ? configs.find((webhook) => webhook.push?.configId === request.id) : configs[0];
    if (!found) {
      throw new TaskNotFoundError(
        `Task ${request.taskId} has no push notification configuration "${request.id}"`,
      );
    }
    return configView(request.taskId, found);
  }

  /** Every configuration of the task, on one page (a task has at most MAX_TASK_PUSH_CONFIGS). */
  async list(
    request: ListTaskPushNotificationConfigsRequest,
    headers: RequestHeaders,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const found = await this.of(request.taskId, headers);
    return { configs: found.map((webhook) => configView(request.taskId, webhook)), nextPageToken: '' };
  }

  /** Deletes a configuration: nothing more is sent to it. One that is not there is deleted already. */
  async remove(request: DeleteTaskPushNotificationConfigRequest, headers: RequestHeaders): Promise<void> {
    const found = (await this.of(request.taskId, headers)).find(
      (webhook) => webhook.push?.configId === request.id,
    );
    if (found) await this.deps.webhooks.remove(found);
  }

  private async of(taskId: string, headers: RequestHeaders): Promise<StoredWebhook[]> {
    await readTask(this.deps, taskId, headers);
    return this.deps.webhooks.ofTask(taskId);
  }
}
