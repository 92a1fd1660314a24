import { errors, json, ok, ref } from '../http/openapi-parts';

/** The admin API's paths: API keys. */
export const apiKeyPaths = {
  '/admin/keys': {
    post: {
      operationId: 'createApiKey',
      summary: 'Create an API key (admin); the key is in this answer only',
      description:
        'Needs the admin role (ADMIN_API_KEY, a key or token with the admin role, or the admin scope): anyone else is 403 ACCESS_DENIED with `details {missing_role: "admin", role}`. `role` (viewer, operator, admin) gives the key a role beside its scopes; a viewer or operator key with the admin scope is 400.',
      tags: ['admin'],
      requestBody: { required: true, content: json('NewApiKey') },
      responses: { '201': ok('Created.', 'CreatedApiKey'), ...errors('400', '401', '403', '415', '503') },
    },
    get: {
      operationId: 'listApiKeys',
      summary: 'List API keys (admin), never their secrets',
      tags: ['admin'],
      parameters: [{ name: 'caller_id', in: 'query', required: false, schema: { type: 'string' } }],
      responses: {
        '200': {
          description: 'The keys.',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { keys: { type: 'array', items: ref('ApiKeyRecord') } },
              },
            },
          },
        },
        ...errors('401', '403', '503'),
      },
    },
  },
  '/admin/keys/{key_id}': {
    delete: {
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key (admin)',
      tags: ['admin'],
      parameters: [{ name: 'key_id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '204': { description: 'Revoked.' }, ...errors('401', '403', '404', '503') },
    },
  },
};
