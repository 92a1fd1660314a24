import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectModernMcp } from '../support/agent-mcp';
import { CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, PROTOCOL_VERSION_KEY } from '../support/mcp-json-rpc';
import { TEST_ADMIN_KEY } from '../support/service-process';
import { TestSystem } from '../support/system';

type Json = Record<string, unknown>;

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
/** The worker's skills, each deprecated once by the test, so that no change undoes another. */
const HOSTED = ['echo', 'chatty', 'sleepy', 'flaky', 'fatal'];

/** A subscriptions/listen request as plain HTTP: the response, and its SSE body's messages as they come. */
async function openListen(baseUrl: string, id: number, headers: Record<string, string>, signal: AbortSignal) {
  const response = await fetch(new URL('/mcp', baseUrl), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: {
        notifications: { toolsListChanged: true },
        _meta: {
          [PROTOCOL_VERSION_KEY]: '2026-07-28',
          [CLIENT_CAPABILITIES_KEY]: {},
          [CLIENT_INFO_KEY]: { name: 'skillrun-raw', version: '1.0.0' },
        },
      },
    }),
    signal,
  });
  return response;
}

/** The first message of an SSE body. */
async function firstMessage(response: Response): Promise<Json> {
  const reader = response.body?.getReader();
  if (!reader) throw new Error('no body');
  let text = '';
  for (;;) {
    const data = text.split('\n').find((line) => line.startsWith('data:'));
    if (data && text.includes('\n\n')) return JSON.parse(data.slice('data:'.length)) as Json;
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended: ${text}`);
    text += new TextDecoder().decode(value);
  }
}

/**
 * subscriptions/listen, which replaces the GET stream in revision 2026-07-28: a tools-only server
 * acknowledges toolsListChanged (it has no prompts or resources to tell of) and sends
 * notifications/tools/list_changed on the stream when the skills change, with no session open on
 * the gateway; listen streams count against the caller's bound as sessions do.
 */
describe('MCP subscriptions/listen (2026-07-28)', () => {
  let system: TestSystem;
  let headers: Record<string, string>;
  const closing: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    system = await TestSystem.start({ MCP_LIST_CHANGED_POLL_MS: '200', MCP_MAX_SESSIONS_PER_CALLER: '2' });
    await system.addWorker({ WORKER_SKILLS: HOSTED.join(',') });
    headers = { 'x-api-key': await system.client.createKey('listener') };
  });
  afterAll(async () => {
    await Promise.all(closing.map((close) => close().catch(() => {})));
    await system?.stop();
  });

  /** Deprecates one more skill: each call makes a tool list the watch has never seen. */
  const deprecateNext = async () => {
    const skill = HOSTED.shift();
    if (!skill) throw new Error('no skill left to deprecate');
    const answer = await system.client.request(`/skills/${skill}/versions/1.0.0/deprecation`, {
      method: 'PUT',
      json: { message: 'use something else' },
      headers: { 'x-api-key': TEST_ADMIN_KEY },
    });
    expect(answer.status).toBe(200);
  };

  it('acknowledges toolsListChanged and resourcesListChanged alone, and tells the stream each time the tools (and skills) change', async () => {
    const client = await connectModernMcp(system.gateway.url, headers);
    closing.push(() => client.close());
    let changes = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changes++;
    });
    let skillChanges = 0;
    client.setNotificationHandler('notifications/resources/list_changed', () => {
      skillChanges++;
    });
    const subscription = await client.listen({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['skillrun://nothing'],
    });
    closing.push(() => subscription.close());
    // The skills extension's SKILL.md files are resources, which change with the tools.
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, resourcesListChanged: true });

    // The watch reads the registry once before it can tell a change: a change made before that
    // read is its starting point, so one more is made until one is told.
    for (let told = false; !told; ) {
      await deprecateNext();
      told = await expect
        .poll(() => changes, { timeout: 3000 })
        .toBeGreaterThan(0)
        .then(
          () => true,
          () => false,
        );
    }
    await expect.poll(() => skillChanges).toBeGreaterThan(0);
    const seen = changes;
    await deprecateNext();
    await expect.poll(() => changes, { timeout: 15_000 }).toBeGreaterThan(seen);
    await subscription.close();
    expect(await subscription.closed).toBe('local');
  });

  it('over plain HTTP: the acknowledgement first, naming the subscription; a caller past its bound is 429 until one closes', async () => {
    const first = new AbortController();
    const second = new AbortController();
    closing.push(async () => {
      first.abort();
      second.abort();
    });
    const opened = await openListen(system.gateway.url, 7, headers, first.signal);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await firstMessage(opened)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true }, _meta: { [SUBSCRIPTION_ID]: 7 } },
    });
    const again = await openListen(system.gateway.url, 8, headers, second.signal);
    expect(again.status).toBe(200);
    await firstMessage(again);

    const refused = await openListen(system.gateway.url, 9, headers, AbortSignal.timeout(30_000));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect(await refused.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 9,
      error: { data: { error: { code: 'RATE_LIMIT_EXCEEDED' } } },
    });
    // Another caller is not held by this one's streams.
    const other = new AbortController();
    closing.push(async () => other.abort());
    const theirs = await openListen(
      system.gateway.url,
      10,
      { 'x-api-key': await system.client.createKey('another-listener') },
      other.signal,
    );
    expect(theirs.status).toBe(200);
    other.abort();

    first.abort();
    const third = new AbortController();
    closing.push(async () => third.abort());
    await expect
      .poll(async () => {
        const answer = await openListen(system.gateway.url, 11, headers, third.signal);
        if (answer.status !== 200) await answer.body?.cancel();
        return answer.status;
      })
      .toBe(200);
  });

  it('ends its listen streams gracefully when the gateway shuts down: the empty result, then the end', async () => {
    const replica = await system.addGateway();
    const client = await connectModernMcp(replica.url, headers);
    const subscription = await client.listen({ toolsListChanged: true });
    expect(await replica.process.stop()).toBe(0);
    expect(await subscription.closed).toBe('graceful');
    await client.close().catch(() => {});
  });
});
