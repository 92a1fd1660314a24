import { type SkillDescriptor, toA2aSkill } from '@skillrun/core';

type Json = Record<string, unknown>;

/** Where the A2A bindings are served, under the gateway's base URL. */
export const A2A_JSONRPC_PATH = '/a2a';
export const A2A_REST_PATH = '/a2a/rest';

/**
 * The Agent Card (A2A 1.0, in its JSON form: the protocol's ProtoJSON) of this service: one agent
 * whose skills are the registry's, as anyone may discover them (public and restricted skills, each
 * at its latest version). Security schemes are our credentials: an API key in X-API-Key, or a
 * bearer token (one of our API keys, or an OAuth 2 JWT). JSON-RPC is served at /a2a, for 1.0 and
 * for 0.3 (its method names: message/send, tasks/get, tasks/cancel, ...); the HTTP+JSON binding
 * (1.0) at /a2a/rest. Plain text is an input mode when this gateway routes plain-text messages.
 */
export function agentCardJson(
  skills: SkillDescriptor[],
  context: { baseUrl: string; providerName: string; plainText: boolean },
): Json {
  const { baseUrl } = context;
  const text = context.plainText
    ? ' A message of plain text that names no skill is routed to one (its task says how, in metadata.routing).'
    : '';
  return {
    name: 'skillrun',
    description: `The skills of this skillrun service as one agent. Send a message whose metadata names the skill (skill_id) with a data part carrying its inputs; the task is the skill's execution, its artifact the skill's output.${text}`,
    supportedInterfaces: [
      { url: `${baseUrl}${A2A_JSONRPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${baseUrl}${A2A_JSONRPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${baseUrl}${A2A_REST_PATH}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    provider: { url: baseUrl, organization: context.providerName },
    version: '1.0.0',
    documentationUrl: `${baseUrl}/docs`,
    capabilities: { streaming: true, pushNotifications: true },
    securitySchemes: {
      apiKey: {
        apiKeySecurityScheme: {
          description: 'A skillrun API key (srk_…)',
          location: 'header',
          name: 'X-API-Key',
        },
      },
      bearer: {
        httpAuthSecurityScheme: {
          description: 'A skillrun API key, or an OAuth 2 access token (JWT) of the configured issuer',
          scheme: 'Bearer',
          bearerFormat: 'JWT',
        },
      },
    },
    defaultInputModes: context.plainText ? ['application/json', 'text/plain'] : ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: skills.map(toA2aSkill),
  };
}
