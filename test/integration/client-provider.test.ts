import { SkillrunClient, SkillrunError } from '@skillrun/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderServer, startProviderServer } from '../support/client-provider-server';

/** The client against a provider that is not skillrun: what it does comes from the descriptor alone. */
describe('the client against another spec 001 provider', () => {
  let provider: ProviderServer;
  const fast = { initialDelayMs: 5, maxDelayMs: 50 };

  beforeAll(async () => {
    provider = await startProviderServer();
  });
  afterAll(() => provider?.close());

  it('describes, invokes with its key header, rides out a 503 and a timeout, polls and reads the result', async () => {
    const client = new SkillrunClient({
      apiKey: provider.key,
      caller: { id: 'c1', type: 'ifay' },
      retry: fast,
    });
    const descriptor = await client.describe(provider.descriptorUrl);
    expect(descriptor.auth).toMatchObject({ type: 'api_key', header: 'X-Provider-Key' });
    provider.requests.length = 0;
    provider.refuseNextInvocations('unavailable', 'timeout');
    const updates: string[] = [];

    const output = await client.invokeAndWait(
      descriptor,
      { name: 'Ada' },
      { onUpdate: (execution) => updates.push(execution.status) },
    );

    expect(output).toEqual({ greeting: 'Hello, Ada!' });
    const invocations = provider.requests.filter((request) => request.method === 'POST');
    expect(invocations).toHaveLength(3);
    expect(new Set(invocations.map((request) => request.headers['idempotency-key'])).size).toBe(1);
    expect(invocations[0]?.body).toEqual({
      caller: { id: 'c1', type: 'ifay' },
      skill_id: 'org.example.greet',
      inputs: { name: 'Ada' },
    });
    expect(provider.requests.every((request) => request.headers['x-provider-key'] === provider.key)).toBe(
      true,
    );
    expect(provider.requests.some((request) => request.headers['x-api-key'] !== undefined)).toBe(false);
    // Status at spec 001's `{status_url}/{execution_id}`, then the output from result_url.
    const paths = provider.requests.map((request) => request.path.replace(/[0-9a-f-]{36}/, 'ID'));
    expect(paths.filter((path) => path === '/api/executions/ID').length).toBeGreaterThanOrEqual(3);
    expect(paths.at(-1)).toBe('/api/executions/ID/result');
    expect(updates[0]).toBe('running');
    expect(updates.at(-1)).toBe('completed');
  });

  it("throws the provider's own error code when its execution fails", async () => {
    const client = new SkillrunClient({
      providers: { [provider.url]: { apiKey: provider.key } },
      retry: fast,
    });
    const failure = await client
      .invokeAndWait(provider.descriptorUrl, { name: 'fail' })
      .catch((error) => error);
    expect(failure).toBeInstanceOf(SkillrunError);
    expect(failure).toMatchObject({
      code: 'GREETING_FAILED',
      recoverable: false,
      execution: { status: 'failed' },
    });
  });

  it('invokes again after an execution that timed out with retry hints, when asked to (spec 001 6.6)', async () => {
    const client = new SkillrunClient({ apiKey: provider.key, retry: fast });
    const timedOut = await client
      .invokeAndWait(provider.descriptorUrl, { name: 'slow-a' })
      .catch((error) => error);
    expect(timedOut).toBeInstanceOf(SkillrunError);
    expect(timedOut).toMatchObject({
      code: 'EXECUTION_TIMEOUT',
      retry: { suggested_delay_ms: 5, max_attempts: 3 },
      execution: { status: 'timeout' },
    });

    provider.requests.length = 0;
    const statuses: string[] = [];
    const output = await client.invokeAndWait(
      provider.descriptorUrl,
      { name: 'slow-b' },
      {
        retryTimeouts: true,
        idempotencyKey: 'greet-slow-b',
        onUpdate: (execution) => statuses.push(execution.status),
      },
    );
    expect(output).toEqual({ greeting: 'Hello, slow-b!' });
    expect(statuses).toContain('timeout');
    const keys = provider.requests
      .filter((request) => request.method === 'POST')
      .map((request) => request.headers['idempotency-key']);
    expect(keys).toEqual(['greet-slow-b', 'greet-slow-b#2']);
  });

  it('obtains an OAuth 2 token with its client credentials for an oauth2 skill, once, and sends it', async () => {
    const client = new SkillrunClient({ oauth2: provider.oauthClient, retry: fast });
    const descriptor = await client.describe(provider.oauthDescriptorUrl);
    provider.requests.length = 0;
    const issued = provider.tokensIssued;

    const output = await client.invokeAndWait(descriptor, { name: 'Oauth' });
    await client.invokeAndWait(descriptor, { name: 'Again' });

    expect(output).toEqual({ greeting: 'Hello, Oauth!' });
    expect(provider.tokensIssued - issued).toBe(1);
    const [grant, ...calls] = provider.requests;
    expect(grant).toMatchObject({
      method: 'POST',
      path: '/oauth/token',
      body: { grant_type: 'client_credentials', scope: 'skill:invoke skill:read' },
    });
    expect(new Set(calls.map((request) => request.headers.authorization)).size).toBe(1);
    expect(calls[0]?.headers.authorization).toMatch(/^Bearer token-/);

    const stranger = new SkillrunClient({
      oauth2: { clientId: 'greeter-app', clientSecret: 'wrong' },
      retry: fast,
    });
    await expect(stranger.invoke(descriptor, { name: 'Eve' })).rejects.toMatchObject({
      code: 'AUTH_REQUIRED',
      httpStatus: 401,
      details: { required_auth_type: 'oauth2' },
    });
  });

  it('reads status and result by handle, and refuses a missing key with AUTH_REQUIRED', async () => {
    const client = new SkillrunClient({ apiKey: provider.key, retry: fast });
    const handle = await client.invoke(await client.describe(provider.descriptorUrl), { name: 'Grace' });
    expect(handle.statusUrl).toBe(`${provider.url}/api/executions/${handle.executionId}`);
    expect(handle.eventsUrl).toBeUndefined();
    expect((await client.status(handle)).status).toBe('running');
    expect((await client.wait(handle)).output).toEqual({ greeting: 'Hello, Grace!' });
    await expect(client.cancel(handle)).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });

    const keyless = new SkillrunClient({ retry: fast });
    const refused = await keyless.invoke(handle.descriptor, { name: 'Eve' }).catch((error) => error);
    expect(refused).toBeInstanceOf(SkillrunError);
    expect(refused).toMatchObject({
      code: 'AUTH_REQUIRED',
      httpStatus: 401,
      details: { required_auth_type: 'api_key' },
    });
  });
});
