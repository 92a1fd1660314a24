import { OutboundHttp } from '@skillrun/core';
import { ProviderCredentialsStore } from '@skillrun/core/data';
import { RemoteBody } from '../bodies/remote-body';
import type { WorkerShared } from '../worker-shared';
import { ProviderAuth } from './provider-auth';
import { RemoteProvider } from './remote-provider';

/** The body of skills registered from elsewhere: their providers, called safely (OutboundHttp). */
export function buildRemoteBody({ config, redis, keys, store }: WorkerShared): RemoteBody {
  const http = new OutboundHttp({
    allow: config.OUTBOUND_ALLOW?.split(',') ?? [],
    timeoutMs: config.OUTBOUND_TIMEOUT_MS,
    maxResponseBytes: config.MAX_OUTPUT_BYTES * 2,
  });
  const credentials =
    config.PROVIDER_SECRETS_KEY === undefined
      ? undefined
      : new ProviderCredentialsStore(redis, keys, config.PROVIDER_SECRETS_KEY);
  return new RemoteBody({ provider: new RemoteProvider(http, new ProviderAuth(credentials, http)), store });
}
