import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSystem } from '../support/system';
import { WebhookReceiver } from '../support/webhook-receiver';

type Json = Record<string, unknown>;
interface RpcAnswer {
  status: number;
  body: { id?: unknown; result?: Json & { task?: Json }; error?: { code: number; message: string } };
}

interface ListedTask {
  id: string;
  contextId: string;
  status: { state: string; timestamp: string };
  artifacts?: unknown[];
}
interface ListTasksResult {
  tasks: ListedTask[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

/**
 * A2A 1.0's ListTasks and push notification configurations, over JSON-RPC as any A2A client
 * sends them: the caller's own tasks with its filters and cursors, and push notifications
 * delivered through the webhook machinery (signed, to allowed addresses only, retried).
 */
describe('A2A 1.0: ListTasks and push notification configurations', () => {
  let system: TestSystem;
  let receiver: WebhookReceiver;
  let mine: string;
  let theirs: string;

  const rpc = async (method: string, params: Json, key?: string, version = '1.0'): Promise<RpcAnswer> => {
    const answer = await system.client.request<RpcAnswer['body']>('/a2a', {
      json: { jsonrpc: '2.0', id: method, method, params },
      headers: { 'a2a-version': version, ...(key ? { 'x-api-key': key } : {}) },
    });
    return { status: answer.status, body: answer.body };
  };

  const message = (inputs: Json, skillId = 'echo', contextId?: string) => ({
    message: {
      messageId: crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: [{ data: inputs, mediaType: 'application/json' }],
      metadata: { skill_id: skillId },
      ...(contextId ? { contextId } : {}),
    },
  });

  /** Sends a message as `key`, answers the task. */
  const send = async (key: string, params: Json): Promise<Json & { id: string; contextId: string }> => {
    const sent = await rpc('SendMessage', params, key);
    expect(sent.body.error, JSON.stringify(sent.body.error)).toBeUndefined();
    return sent.body.result?.task as Json & { id: string; contextId: string };
  };

  const list = async (params: Json, key = mine): Promise<ListTasksResult> => {
    const answer = await rpc('ListTasks', params, key);
    expect(answer.body.error, JSON.stringify(answer.body.error)).toBeUndefined();
    return answer.body.result as unknown as ListTasksResult;
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    system = await TestSystem.start({ OUTBOUND_ALLOW: '127.0.0.1/32', A2A_SEND_WAIT_SECONDS: '5' });
    await system.addWorker({
      WORKER_SKILLS: 'echo,sleepy',
      WORKER_CONCURRENCY: '8',
      WEBHOOK_BACKOFF_MS: '200',
      WEBHOOK_ATTEMPTS: '10',
    });
    mine = await system.client.createKey('a2a-lister');
    theirs = await system.client.createKey('a2a-stranger');
  });
  afterAll(async () => {
    await system?.stop();
    await receiver?.stop();
  });

  it("lists the caller's own tasks in a context, newest first, a page at a time", async () => {
    const context = `ctx-${crypto.randomUUID()}`;
    const sent = [];
    for (const text of ['one', 'two', 'three'])
      sent.push(await send(mine, message({ text }, 'echo', context)));
    expect(sent.every((task) => task.contextId === context)).toBe(true);
    await send(mine, message({ text: 'elsewhere' }));
    await send(theirs, message({ text: 'not mine' }, 'echo', context));

    const first = await list({ contextId: context, pageSize: 2 });
    expect(first).toMatchObject({ pageSize: 2, totalSize: 3 });
    expect(first.tasks.map((task) => task.id)).toEqual([sent[2]?.id, sent[1]?.id]);
    expect(first.tasks.every((task) => task.contextId === context)).toBe(true);
    expect(first.nextPageToken).not.toBe('');
    const second = await list({ contextId: context, pageSize: 2, pageToken: first.nextPageToken });
    expect(second.tasks.map((task) => task.id)).toEqual([sent[0]?.id]);
    expect(second).toMatchObject({ pageSize: 1, totalSize: 3, nextPageToken: '' });

    const everything = await list({});
    expect(everything.totalSize).toBe(4);
    expect(everything.nextPageToken).toBe('');
    const someoneElses = await list({ contextId: context }, theirs);
    expect(someoneElses.totalSize).toBe(1);
    const nowhere = await list({ contextId: `ctx-${crypto.randomUUID()}` });
    expect(nowhere).toEqual({ tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 });
  });

  it('filters by state and status timestamp, and shows artifacts only when asked', async () => {
    const done = await send(mine, message({ text: 'done' }));
    const since = new Date().toISOString();
    const running = await send(mine, {
      ...message({ ms: 3000, label: 'running' }, 'sleepy'),
      configuration: { returnImmediately: true },
    });
    await expect
      .poll(async () => (await list({ status: 'TASK_STATE_WORKING' })).tasks.map((task) => task.id))
      .toContain(running.id);
    const completed = await list({ status: 'TASK_STATE_COMPLETED' });
    expect(completed.tasks.map((task) => task.id)).toContain(done.id);
    expect(completed.tasks.every((task) => task.status.state === 'TASK_STATE_COMPLETED')).toBe(true);
    expect(completed.tasks.every((task) => (task.artifacts ?? []).length === 0)).toBe(true);
    const withArtifacts = await list({ status: 'TASK_STATE_COMPLETED', includeArtifacts: true });
    expect(withArtifacts.tasks.find((task) => task.id === done.id)?.artifacts).toHaveLength(1);
    const recent = await list({ statusTimestampAfter: since });
    expect(recent.tasks.map((task) => task.id)).toContain(running.id);
    expect(recent.tasks.map((task) => task.id)).not.toContain(done.id);
    expect((await list({ status: 'TASK_STATE_INPUT_REQUIRED' })).totalSize).toBe(0);
  });

  it('refuses what ListTasks bounds with Invalid params (-32602), and a caller without credentials', async () => {
    for (const params of [
      { pageSize: 0 },
      { pageSize: 101 },
      { pageSize: -1 },
      { historyLength: -1 },
      { pageToken: 'invalid-token-xyz' },
      { status: 'INVALID_STATUS' },
      { statusTimestampAfter: 'yesterday' },
    ]) {
      const answer = await rpc('ListTasks', params, mine);
      expect(answer.body.error?.code, JSON.stringify(params)).toBe(-32602);
    }
    const anonymous = await rpc('ListTasks', {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error?.message).toMatch(/credentials/);
    // The HTTP+JSON binding's list too, with or without a tenant; one task by its id needs none.
    for (const path of ['/a2a/rest/tasks', '/a2a/rest/some-tenant/tasks']) {
      const listed = await system.client.request<{ error: { code: string } }>(path, { method: 'GET' });
      expect([listed.status, listed.body.error?.code], path).toEqual([401, 'AUTH_REQUIRED']);
    }
  });

  it('pushes every change of a task to the configuration its message names, signed with its token', async () => {
    const token = `token-${crypto.randomUUID()}`;
    await receiver.trust(`whsec_${Buffer.from(token).toString('base64')}`);
    const context = `ctx-${crypto.randomUUID()}`;
    const task = await send(mine, {
      ...message({ ms: 300, label: 'pushed' }, 'sleepy', context),
      configuration: {
        returnImmediately: true,
        taskPushNotificationConfig: { url: `${receiver.url}/hook/at-send`, token },
      },
    });
    await expect
      .poll(async () =>
        (await receiver.received())
          .filter((entry) => entry.path === '/hook/at-send')
          .map((entry) => (entry.body as unknown as { task: ListedTask }).task.status.state),
      )
      .toContain('TASK_STATE_COMPLETED');
    const delivered = (await receiver.received()).filter((entry) => entry.path === '/hook/at-send');
    for (const entry of delivered) {
      expect(entry.verified).toBe(true);
      expect(entry.headers['x-a2a-notification-token']).toBe(token);
      expect(entry.headers['content-type']).toBe('application/a2a+json');
      // Noted before the execution existed: even its first change shows the message's context.
      expect((entry.body as unknown as { task: ListedTask }).task).toMatchObject({
        id: task.id,
        contextId: context,
      });
    }
  });

  it('sets, gets, lists and deletes configurations of a task, in 1.0 and 0.3, the caller’s own only', async () => {
    const task = await send(mine, {
      ...message({ ms: 1500, label: 'configured' }, 'sleepy'),
      configuration: { returnImmediately: true },
    });
    const created = await rpc(
      'CreateTaskPushNotificationConfig',
      {
        taskId: task.id,
        id: 'cfg-1',
        url: `${receiver.url}/hook/later`,
        authentication: { scheme: 'Bearer', credentials: 'receiver-secret' },
      },
      mine,
    );
    expect(created.body.result).toMatchObject({
      id: 'cfg-1',
      taskId: task.id,
      url: `${receiver.url}/hook/later`,
      authentication: { scheme: 'Bearer' },
    });
    // Credentials are sent to the receiver, never shown again.
    expect(JSON.stringify(created.body.result)).not.toContain('receiver-secret');
    const legacy = await rpc(
      'tasks/pushNotificationConfig/set',
      { taskId: task.id, pushNotificationConfig: { id: 'cfg-03', url: `${receiver.url}/hook/legacy` } },
      mine,
      '0.3',
    );
    expect(legacy.body.error).toBeUndefined();

    const got = await rpc('GetTaskPushNotificationConfig', { taskId: task.id, id: 'cfg-1' }, mine);
    expect(got.body.result).toMatchObject({ id: 'cfg-1', taskId: task.id });
    const listed = await rpc('ListTaskPushNotificationConfigs', { taskId: task.id }, mine);
    const configs = (listed.body.result?.configs ?? []) as Json[];
    expect(configs.map((config) => config.id)).toEqual(['cfg-1', 'cfg-03']);
    const legacyList = await rpc('tasks/pushNotificationConfig/list', { id: task.id }, mine, '0.3');
    expect(legacyList.body.error).toBeUndefined();

    // Another caller's task is not found, exactly as one nobody made.
    for (const [method, params] of [
      ['GetTaskPushNotificationConfig', { taskId: task.id, id: 'cfg-1' }],
      ['ListTaskPushNotificationConfigs', { taskId: task.id }],
      ['DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'cfg-1' }],
      ['CreateTaskPushNotificationConfig', { taskId: task.id, url: `${receiver.url}/hook/theirs` }],
    ] as const) {
      const answer = await rpc(method, params, theirs);
      expect(answer.body.error?.code, method).toBe(-32001);
      const unknown = await rpc(method, { ...params, taskId: crypto.randomUUID() }, mine);
      expect(unknown.body.error?.code, method).toBe(-32001);
    }
    // An address that is not public is refused, as a webhook's is.
    const internal = await rpc(
      'CreateTaskPushNotificationConfig',
      { taskId: task.id, url: 'http://10.0.0.1/hook' },
      mine,
    );
    expect(internal.body.error?.code).toBe(-32602);

    await expect
      .poll(async () => (await receiver.received()).filter((entry) => entry.path === '/hook/later').length)
      .toBeGreaterThan(0);
    const later = (await receiver.received()).filter((entry) => entry.path === '/hook/later');
    expect(later[0]?.headers.authorization).toBe('Bearer receiver-secret');
    await expect
      .poll(async () =>
        (await receiver.received())
          .filter((entry) => entry.path === '/hook/legacy')
          .map(
            (entry) => (entry.body as unknown as { kind: string; status: { state: string } }).status.state,
          ),
      )
      .toContain('completed');

    const deleted = await rpc('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'cfg-1' }, mine);
    expect(deleted.body).toMatchObject({ result: null });
    const gone = await rpc('GetTaskPushNotificationConfig', { taskId: task.id, id: 'cfg-1' }, mine);
    expect(gone.body.error?.code).toBe(-32001);
  });

  it('says in the Agent Card that it pushes notifications', async () => {
    const card = await system.client.request<{ capabilities: Json }>('/.well-known/agent-card.json');
    expect(card.body.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
  });
});
