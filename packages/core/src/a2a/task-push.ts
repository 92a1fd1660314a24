import type { StreamResponse } from '@a2a-js/sdk';
import { V03PushNotificationSerializer } from '@a2a-js/sdk/compat/v0_3/server';
import { V1PushNotificationSerializer } from '@a2a-js/sdk/server';
import type { Execution } from '../schemas/execution';
import { toA2aTask } from './a2a-task';
import type { TaskNote } from './task-note';

/** The A2A versions whose push notifications we send: each receiver is sent the one it configured in. */
export type TaskPushVersion = '1.0' | '0.3';

/**
 * An A2A push notification configuration of a task, as a webhook of the task keeps it besides its
 * URL: the id it is known by, the token and credentials its receiver checks, and the version of
 * the payload it reads.
 */
export interface TaskPush {
  configId: string;
  /** Sent as X-A2A-Notification-Token (A2A's "token unique for this task or session"). */
  token?: string;
  /** Sent as `Authorization: <scheme> <credentials>`. */
  authentication?: { scheme: string; credentials: string };
  version: TaskPushVersion;
}

/** The header that carries a configuration's token, as the A2A SDKs send and read it. */
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

const serializers = {
  '1.0': new V1PushNotificationSerializer(),
  '0.3': new V03PushNotificationSerializer(),
};

/**
 * What a push notification of the task's state carries, in the version its configuration was made
 * in: A2A 1.0 a StreamResponse holding the task (`{"task": …}`, application/a2a+json), 0.3 the task
 * itself (`{"kind": "task", …}`), serialized by the SDK.
 */
export function taskPushPayload(
  execution: Execution,
  note: TaskNote,
  version: TaskPushVersion,
): { body: string; contentType: string } {
  const task = toA2aTask(execution, note);
  const event: StreamResponse = { payload: { $case: 'task', value: task } };
  return serializers[version].serialize(event, task);
}

/** The header fields the receiver of a configuration checks: its token, its credentials. */
export function taskPushHeaders(push: TaskPush): Record<string, string> {
  return {
    ...(push.token === undefined ? {} : { [NOTIFICATION_TOKEN_HEADER]: push.token }),
    ...(push.authentication === undefined
      ? {}
      : { authorization: `${push.authentication.scheme} ${push.authentication.credentials}` }),
  };
}
