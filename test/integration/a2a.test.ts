import { type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { type Client as A2aClient, ClientFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aMessage } from '../support/a2a-message';
import { TestSystem } from '../support/system';

type Json = Record<string, unknown>;

function asTask(result: unknown): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

const outputOf = (task: Task) => {
  const content = task.artifacts[0]?.parts[0]?.content;
  return content?.$case === 'data' ? content.value : undefined;
};

describe('A2A (Agent2Agent 1.0) with the @a2a-js/sdk client', () => {
  let system: TestSystem;
  let key: string;
  let a2a: A2aClient;
  let as: { serviceParameters: Record<string, string> };

  beforeAll(async () => {
    system = await TestSystem.start({ A2A_SEND_WAIT_SECONDS: '2' });
    await system.addWorker({ WORKER_SKILLS: 'echo,sleepy,thrower', WORKER_CONCURRENCY: '8' });
    key = await system.client.createKey('agent-carol');
    as = { serviceParameters: { 'X-API-Key': key } };
    a2a = await new ClientFactory().createFromUrl(system.gateway.url);
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('publishes an Agent Card built from the registry', async () => {
    const card = await system.client.request<Json & { skills: Json[]; securitySchemes: Json }>(
      '/.well-known/agent-card.json',
    );
    expect(card.status).toBe(200);
    expect(card.body.skills.map((skill) => skill.id)).toEqual(['echo', 'sleepy', 'thrower']);
    expect(card.body.skills[0]).toMatchObject({
      id: 'echo',
      name: 'echo',
      description: expect.stringContaining('returns its input'),
      tags: expect.any(Array),
      examples: [expect.stringContaining('"skill_id": "echo"')],
    });
    expect(Object.keys(card.body.securitySchemes)).toEqual(['apiKey', 'bearer']);
    expect(card.body.supportedInterfaces).toEqual([
      expect.objectContaining({
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
        url: `${system.gateway.url}/a2a`,
      }),
      expect.objectContaining({ protocolBinding: 'JSONRPC', protocolVersion: '0.3' }),
      expect.objectContaining({
        protocolBinding: 'HTTP+JSON',
        protocolVersion: '1.0',
        url: `${system.gateway.url}/a2a/rest`,
      }),
    ]);
  });

  it('runs a skill with SendMessage (a data part carrying the inputs) and answers the completed task', async () => {
    const task = asTask(await a2a.sendMessage(a2aMessage('echo', { text: 'hey', count: 1 }), as));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputOf(task)).toMatchObject({ text: 'hey', count: 1 });
    // The task is the execution, recorded under the key's caller.
    const execution = await system.client.status('echo', task.id, { 'x-api-key': key });
    expect(execution).toMatchObject({ status: 'completed', caller: { id: 'agent-carol' } });
    const again = await a2a.getTask({ tenant: '', id: task.id }, as);
    expect(outputOf(again)).toMatchObject({ text: 'hey' });
  });

  it('answers the task at once with returnImmediately, then GetTask follows it to its end', async () => {
    const request = {
      ...a2aMessage('sleepy', { ms: 600, label: 'later' }),
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: undefined,
        returnImmediately: true,
      },
    };
    const task = asTask(await a2a.sendMessage(request, as));
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(task.status?.state);
    await expect
      .poll(async () => (await a2a.getTask({ tenant: '', id: task.id }, as)).status?.state)
      .toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('streams a task: the task, then its status updates and the output as an artifact', async () => {
    const events: StreamResponse[] = [];
    for await (const event of a2a.sendMessageStream(a2aMessage('sleepy', { ms: 300 }), as))
      events.push(event);
    expect(events[0]?.payload?.$case).toBe('task');
    const artifact = events.find((event) => event.payload?.$case === 'artifactUpdate');
    expect(artifact).toBeDefined();
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe('statusUpdate');
    if (last?.$case === 'statusUpdate') expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('cancels with CancelTask and follows with SubscribeToTask; another caller finds no such task', async () => {
    const request = {
      ...a2aMessage('sleepy', { ms: 4000 }),
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: undefined,
        returnImmediately: true,
      },
    };
    const task = asTask(await a2a.sendMessage(request, as));
    const other = { serviceParameters: { 'X-API-Key': await system.client.createKey('agent-dan') } };
    await expect(a2a.getTask({ tenant: '', id: task.id }, other)).rejects.toThrow();
    const subscribed: StreamResponse[] = [];
    const following = (async () => {
      for await (const event of a2a.resubscribeTask({ tenant: '', id: task.id }, as)) subscribed.push(event);
    })();
    const canceled = await a2a.cancelTask({ tenant: '', id: task.id, metadata: undefined }, as);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await following;
    const last = subscribed.at(-1)?.payload;
    expect(
      last?.$case === 'statusUpdate'
        ? last.value.status?.state
        : last?.$case === 'task'
          ? last.value.status?.state
          : undefined,
    ).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(a2a.cancelTask({ tenant: '', id: task.id, metadata: undefined }, as)).rejects.toThrow();
  });

  it('answers bad inputs and a failing skill in ways an agent can act on', async () => {
    const bad = await a2a.sendMessage(a2aMessage('echo', { text: '' }), as).catch((error: Error) => error);
    expect(bad).toBeInstanceOf(Error);
    const failed = asTask(await a2a.sendMessage(a2aMessage('thrower', {}), as));
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const reason = failed.status?.message?.parts[0]?.content;
    expect(reason?.$case === 'data' ? reason.value : undefined).toMatchObject({
      error: { code: expect.any(String) },
    });
  });

  it('serves the same over the HTTP+JSON binding (/a2a/rest)', async () => {
    const rest = await new ClientFactory({ transports: [new RestTransportFactory()] }).createFromUrl(
      system.gateway.url,
    );
    const task = asTask(await rest.sendMessage(a2aMessage('echo', { text: 'rest', count: 1 }), as));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputOf(task)).toMatchObject({ text: 'rest' });
    expect(outputOf(await rest.getTask({ tenant: '', id: task.id }, as))).toMatchObject({ text: 'rest' });
    const events: StreamResponse[] = [];
    for await (const event of rest.sendMessageStream(a2aMessage('sleepy', { ms: 200 }), as))
      events.push(event);
    expect(events[0]?.payload?.$case).toBe('task');
    expect(events.some((event) => event.payload?.$case === 'artifactUpdate')).toBe(true);
    const denied = await system.client.request(`/a2a/rest/tasks/${task.id}`, {
      headers: { 'x-api-key': 'srk_not-a-key', 'a2a-version': '1.0' },
    });
    expect(denied.status).toBe(401);
    expect(denied.body).toMatchObject({ error: { code: 'AUTH_REQUIRED' } });
  });

  it('takes the v0.3 method names (message/send, tasks/get, tasks/cancel) over JSON-RPC', async () => {
    const rpc = (method: string, params: Json) =>
      system.client.request<{ result?: Json; error?: Json }>('/a2a', {
        json: { jsonrpc: '2.0', id: 1, method, params },
        headers: { 'x-api-key': key },
      });
    const sent = await rpc('message/send', {
      message: {
        kind: 'message',
        messageId: 'm-03',
        role: 'user',
        parts: [{ kind: 'data', data: { text: 'old', count: 1 } }],
        metadata: { skill_id: 'echo' },
      },
    });
    expect(sent.body.error).toBeUndefined();
    expect(sent.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const id = String(sent.body.result?.id);
    expect((await rpc('tasks/get', { id })).body.result).toMatchObject({
      id,
      status: { state: 'completed' },
    });
    const cancel = await rpc('tasks/cancel', { id });
    expect(cancel.body.error).toMatchObject({ code: -32002 });
  });

  it('lets a gateway shut down promptly while a client follows a task (SubscribeToTask), which runs on', async () => {
    const replica = await system.addGateway();
    // A gateway just started may answer 503 while its Redis connection comes up (on a loaded machine).
    await expect
      .poll(async () => (await fetch(`${replica.url}/.well-known/agent-card.json`)).status)
      .toBe(200);
    const client = await new ClientFactory().createFromUrl(replica.url);
    const request = {
      ...a2aMessage('sleepy', { ms: 4500, label: 'outlives-its-gateway' }),
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: undefined,
        returnImmediately: true,
      },
    };
    const task = asTask(await client.sendMessage(request, as));
    const events: StreamResponse[] = [];
    const following = (async () => {
      for await (const event of client.resubscribeTask({ tenant: '', id: task.id }, as)) events.push(event);
    })().catch((error: Error) => error);
    await expect.poll(() => events.length).toBeGreaterThan(0);
    const started = Date.now();
    expect(await replica.process.stop()).toBe(0);
    expect(Date.now() - started).toBeLessThan(3000);
    await following;
    const done = await system.client.request(`/skills/sleepy/result/${task.id}?wait=10`, {
      headers: { 'x-api-key': key },
    });
    expect(done.body).toMatchObject({ status: 'completed', output: { label: 'outlives-its-gateway' } });
  });

  it('refuses invalid credentials with 401, a JSON-RPC error carrying our envelope', async () => {
    const answer = await system.client.request('/a2a', {
      json: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } },
      headers: { 'x-api-key': 'srk_not-a-key', 'a2a-version': '1.0' },
    });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ id: 1, error: { data: { error: { code: 'AUTH_REQUIRED' } } } });
  });
});
