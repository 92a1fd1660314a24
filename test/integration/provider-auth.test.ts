import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundHttp, type SkillDescriptor } from '@skillrun/core';
import { ProviderCredentialsStore, RedisKeys } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderAuth } from '../../apps/worker/src/remote/provider-auth';
import { translateDescriptor } from '../support/descriptors';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// What the worker presents to a registered skill's provider: credentials sealed in Redis, and an
// OAuth 2 token got by the client credentials grant from a real token endpoint, cached.

const KEY = 'provider-auth-test-key-0123456789abcdef';

describe('provider credentials and auth', () => {
  let redis: TestRedis;
  let client: Redis;
  let tokenServer: Server;
  let tokenUrl: string;
  const grants: { authorization?: string; body: string }[] = [];
  const keys = new RedisKeys('{skillrun}');
  const http = new OutboundHttp({ allow: ['127.0.0.1/32'], timeoutMs: 2000, maxResponseBytes: 65_536 });

  beforeAll(async () => {
    redis = await startTestRedis();
    client = new Redis(redis.url);
    tokenServer = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        grants.push({ authorization: req.headers.authorization, body });
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({ access_token: `token-${grants.length}`, token_type: 'Bearer', expires_in: 3600 }),
        );
      });
    });
    await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
    tokenUrl = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}/token`;
  });
  afterAll(async () => {
    await http.close();
    tokenServer.closeAllConnections();
    await new Promise((resolve) => tokenServer.close(resolve));
    client?.disconnect();
    await redis?.stop();
  });

  const oauthDescriptor = (): SkillDescriptor => ({
    ...(translateDescriptor as SkillDescriptor),
    id: 'com.example.oauth-1',
    auth: {
      type: 'oauth2',
      oauth2: { authorization_url: tokenUrl, token_url: tokenUrl, scopes: { 'skill:invoke': 'invoke' } },
    },
  });

  it('keeps credentials sealed: unreadable in Redis, under another key, or for another skill', async () => {
    const store = new ProviderCredentialsStore(client, keys, KEY);
    await store.set('com.example.a', { api_key: 'the-very-secret-provider-key' });
    expect(await store.get('com.example.a')).toEqual({ api_key: 'the-very-secret-provider-key' });
    expect(await client.get(keys.registry.providerCredentials('com.example.a'))).not.toContain('very-secret');
    expect(
      await new ProviderCredentialsStore(client, keys, `${KEY}-other`).get('com.example.a'),
    ).toBeUndefined();
    await client.copy(
      keys.registry.providerCredentials('com.example.a'),
      keys.registry.providerCredentials('com.example.b'),
    );
    expect(await store.get('com.example.b')).toBeUndefined();
  });

  it('gets an OAuth 2 token by the client credentials grant, once, until the provider refuses it', async () => {
    const store = new ProviderCredentialsStore(client, keys, KEY);
    const descriptor = oauthDescriptor();
    await store.set(descriptor.id, { client_id: 'our-client', client_secret: 's3cret/+' });
    const auth = new ProviderAuth(store, http);
    const signal = AbortSignal.timeout(5000);
    const first = await auth.headersFor(descriptor, signal);
    expect(first).toEqual({ authorization: 'Bearer token-1' });
    expect(await auth.headersFor(descriptor, signal)).toEqual(first);
    expect(grants).toHaveLength(1);
    const [grant] = grants;
    expect(new URLSearchParams(grant?.body).get('grant_type')).toBe('client_credentials');
    const basic = Buffer.from(String(grant?.authorization).replace('Basic ', ''), 'base64').toString();
    expect(basic.split(':').map(decodeURIComponent)).toEqual(['our-client', 's3cret/+']);
    auth.forget(descriptor);
    expect(await auth.headersFor(descriptor, signal)).toEqual({ authorization: 'Bearer token-2' });
  });

  it('says what is missing when no credentials are set', async () => {
    const auth = new ProviderAuth(new ProviderCredentialsStore(client, keys, KEY), http);
    const descriptor = { ...oauthDescriptor(), id: 'com.example.unset-1' };
    await expect(auth.headersFor(descriptor, AbortSignal.timeout(1000))).rejects.toMatchObject({
      code: 'TOOL_NOT_AVAILABLE',
      message: expect.stringContaining('no OAuth 2 client'),
    });
  });
});
