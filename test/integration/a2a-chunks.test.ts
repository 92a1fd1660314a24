import { type Part, type StreamResponse, TaskState } from '@a2a-js/sdk';
import { type Client as A2aClient, ClientFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aMessage } from '../support/a2a-message';
import { repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

type ArtifactUpdate = Extract<NonNullable<StreamResponse['payload']>, { $case: 'artifactUpdate' }>['value'];

/** The updates of the streamed artifact, in the order received. */
function streamedOf(events: StreamResponse[]): ArtifactUpdate[] {
  return events.flatMap((event) =>
    event.payload?.$case === 'artifactUpdate' && event.payload.value.artifact?.artifactId === 'output-stream'
      ? [event.payload.value]
      : [],
  );
}

const contentOf = (part: Part | undefined) => part?.content;

describe('A2A streaming: chunks a skill streams (ctx.emit) as updates of the artifact output-stream', () => {
  let system: TestSystem;
  let a2a: A2aClient;
  let as: { serviceParameters: Record<string, string> };
  let key: string;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ SKILLS_DIR: `${repoRoot}test/fixtures/emit-skills` });
    key = await system.client.createKey('agent-erin');
    as = { serviceParameters: { 'X-API-Key': key } };
    a2a = await new ClientFactory().createFromUrl(system.gateway.url);
  });
  afterAll(() => system?.stop());

  it('sends 20 text chunks over SendStreamingMessage in order, once each, before the output and the final status', async () => {
    const events: StreamResponse[] = [];
    for await (const event of a2a.sendMessageStream(
      a2aMessage('emitter', { count: 20, pause_ms: 20, kind: 'text' }),
      as,
    )) {
      events.push(event);
    }
    expect(events[0]?.payload?.$case).toBe('task');
    const streamed = streamedOf(events);
    const chunks = streamed.slice(0, -1);
    expect(chunks.map((update) => contentOf(update.artifact?.parts[0]))).toEqual(
      Array.from({ length: 20 }, (_, n) => ({ $case: 'text', value: `line ${n + 1}\n` })),
    );
    // The first starts the artifact, the rest append to it; the end appends nothing and says so.
    expect(chunks.map((update) => [update.append, update.lastChunk])).toEqual([
      [false, false],
      ...Array.from({ length: 19 }, () => [true, false]),
    ]);
    expect(streamed.at(-1)).toMatchObject({ append: true, lastChunk: true, artifact: { parts: [] } });
    const taskId = events[0]?.payload?.$case === 'task' ? events[0].payload.value.id : '';
    expect(streamed.every((update) => update.taskId === taskId)).toBe(true);
    // After the stream: the output artifact as before, then the final status.
    const end = events.findIndex((event) => event.payload?.value === streamed.at(-1));
    const tail = events.slice(end + 1);
    expect(tail.map((event) => event.payload?.$case)).toEqual(['artifactUpdate', 'statusUpdate']);
    const output = tail[0]?.payload?.$case === 'artifactUpdate' ? tail[0].payload.value : undefined;
    expect(output?.artifact?.artifactId).toBe('output');
    expect(contentOf(output?.artifact?.parts[0])).toEqual({ $case: 'data', value: { emitted: 20 } });
    const last = tail[1]?.payload;
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });

  it('sends chunks that are not text as data parts, and SubscribeToTask sends them all from the first', async () => {
    const events: StreamResponse[] = [];
    const request = {
      ...a2aMessage('emitter', { count: 10, pause_ms: 60, kind: 'object', progress: true }),
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: undefined,
        returnImmediately: true,
      },
    };
    const started = await a2a.sendMessage(request, as);
    const id = 'id' in started ? started.id : '';
    for await (const event of a2a.resubscribeTask({ tenant: '', id }, as)) events.push(event);
    const streamed = streamedOf(events);
    expect(streamed.slice(0, -1).map((update) => contentOf(update.artifact?.parts[0]))).toEqual(
      Array.from({ length: 10 }, (_, n) => ({ $case: 'data', value: { n: n + 1 } })),
    );
    expect(streamed.at(-1)?.lastChunk).toBe(true);
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });

  it('sends them over A2A 0.3 message/stream too, as 0.3 artifact-update events', async () => {
    const response = await fetch(`${system.gateway.url}/a2a`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'a2a-version': '0.3',
        'x-api-key': key,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/stream',
        params: {
          message: {
            kind: 'message',
            messageId: crypto.randomUUID(),
            role: 'user',
            parts: [{ kind: 'data', data: { count: 3, kind: 'text' } }],
            metadata: { skill_id: 'emitter' },
          },
        },
      }),
    });
    expect(response.status).toBe(200);
    const results = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice('data:'.length)).result);
    const streamed = results.filter(
      (result) => result?.kind === 'artifact-update' && result.artifact.artifactId === 'output-stream',
    );
    expect(streamed.map((update) => update.artifact.parts)).toEqual([
      [{ kind: 'text', text: 'line 1\n' }],
      [{ kind: 'text', text: 'line 2\n' }],
      [{ kind: 'text', text: 'line 3\n' }],
      [],
    ]);
    expect(streamed.at(-1)).toMatchObject({ append: true, lastChunk: true });
    expect(results.at(-1)).toMatchObject({
      kind: 'status-update',
      status: { state: 'completed' },
      final: true,
    });
  });
});
