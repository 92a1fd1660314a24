import { errors } from '../http/openapi-parts';
import { TokenExchange } from './console-sign-in';

const noCredentials = [{}];

/**
 * The console's paths: its page, and (ours) what it needs before anyone has signed in (so neither
 * asks for credentials).
 */
export const consolePaths = {
  '/console/sign-in': {
    get: {
      operationId: 'getConsoleSignIn',
      summary: 'How the console may sign people in (ours)',
      description:
        "`oauth2` when the gateway is set up for signing in at an OAuth 2 authorization server (CONSOLE_OAUTH_CLIENT_ID; its endpoints OAUTH_AUTHORIZATION_URL and OAUTH_TOKEN_URL, or those of the issuer's discovery document): where to send the browser, the console's client id, the scope to ask for and the resource (OAUTH_AUDIENCE); `{}` otherwise (an API key or token is pasted in). 503 when the discovery document cannot be read.",
      tags: ['meta'],
      security: noCredentials,
      responses: {
        '200': {
          description: 'The ways to sign in.',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  oauth2: {
                    type: 'object',
                    required: ['authorization_url', 'client_id', 'resource'],
                    properties: {
                      authorization_url: { type: 'string', format: 'uri' },
                      client_id: { type: 'string' },
                      scope: { type: 'string' },
                      resource: { type: 'string' },
                    },
                  },
                },
              },
            },
          },
        },
        ...errors('503'),
      },
    },
  },
  '/console/sign-in/token': {
    post: {
      operationId: 'exchangeConsoleToken',
      summary: "Exchanges the console's authorization code, or its refresh token, for an access token (ours)",
      description:
        "The authorization code grant with PKCE (RFC 7636): the gateway sends the code, the verifier and the redirect_uri to the token endpoint as the console's public client, asking for OAUTH_AUDIENCE as the resource (RFC 8707), and answers the access token, which is then used as any bearer token, with the refresh token when the server gives one. Given `{refresh_token}` instead, it makes the refresh token grant (RFC 6749 section 6) for a new access token (and the refresh token that replaces the old one, when the server rotates them): the console does so when its access token has expired. 400 INVALID_INPUT when the authorization server refuses the code or the refresh token (naming its error), 501 NOT_CONFIGURED without the settings, 503 when it does not answer.",
      tags: ['meta'],
      security: noCredentials,
      requestBody: { required: true, content: { 'application/json': { schema: TokenExchange } } },
      responses: {
        '200': {
          description: 'The access token, and what renews it.',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['access_token'],
                properties: {
                  access_token: { type: 'string' },
                  expires_in: { type: 'integer' },
                  refresh_token: { type: 'string' },
                },
              },
            },
          },
        },
        ...errors('400', '415', '501', '503'),
      },
    },
  },
  '/console': {
    get: {
      operationId: 'getConsole',
      summary: 'The operations console (a page for browsers; it signs in with an API key or token)',
      tags: ['meta'],
      responses: { '200': { description: 'HTML', content: { 'text/html': {} } } },
    },
  },
};
