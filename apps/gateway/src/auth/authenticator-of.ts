import type { Logger } from '@skillrun/core';
import type { ApiKeyStore } from '@skillrun/core/data';
import type { GatewayConfig } from '../config';
import { Authenticator } from './authenticator';
import { CustomAuthorizer } from './custom-authorizer';
import { JwtVerifier } from './jwt-verifier';

/** The authenticator the configuration asks for: API keys always, JWTs, ADMIN_API_KEY and a custom authorizer when set. */
export function authenticatorOf(config: GatewayConfig, apiKeys: ApiKeyStore, logger: Logger): Authenticator {
  return new Authenticator({
    apiKeys,
    ...(config.OAUTH_JWKS_URL && config.OAUTH_ISSUER && config.OAUTH_AUDIENCE
      ? {
          jwt: new JwtVerifier({
            issuer: config.OAUTH_ISSUER,
            audience: config.OAUTH_AUDIENCE,
            jwksUrl: config.OAUTH_JWKS_URL,
            roleClaim: config.OAUTH_ROLE_CLAIM,
          }),
        }
      : {}),
    ...(config.ADMIN_API_KEY ? { adminKey: config.ADMIN_API_KEY } : {}),
    ...(config.CUSTOM_AUTH_URL
      ? {
          custom: new CustomAuthorizer({
            url: config.CUSTOM_AUTH_URL,
            timeoutMs: config.CUSTOM_AUTH_TIMEOUT_MS,
            logger,
          }),
        }
      : {}),
    logger,
  });
}
